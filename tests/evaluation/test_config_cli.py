"""Every bad number and JSON value ``officegym eval`` (and ``run``) can be given: exit 2, one line, no traceback.

The table below is the committed result of this attack: each row is one bad input, and every one of them must
end the command with exit code 2 and exactly one line on stderr that names the option (argparse's own errors
included: the parser prints one line, not the usage), with nothing written to the output directory. Of 196 bad
inputs once tried, 14 were accepted silently (``--backoff nan`` became a 60 s delay, ``--max-backoff nan``
failed every retried episode, ``-r 1000000000000`` exhausted memory) and 11 errors were unclear; the ranges
each option now states are in ``evaluation/options.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from officegym.cli import main
from officegym.evaluation.options import MAX_EPISODES, RANGES, Range

INVOICE = "officegym/InvoiceApproval-v0"
LOCAL = ["-m", "fake-model", "-b", "http://127.0.0.1:9/v1"]  # never reached: every case fails before a request

NOT_FINITE = ["nan", "NaN", "inf", "Infinity", "1e309", "-1e309"]
NOT_NUMBERS = ["abc", "", "1,5", "0x10", "one"]
FLOAT_OPTIONS: dict[str, list[str]] = {
    "--temperature": ["-0.1", "2.01", "100", "-1"],
    "--timeout": ["0", "-1", "0.0", "86401", "1e12"],
    "--backoff": ["-1", "-0.001", "3601", "1e300"],
    "--max-backoff": ["-1", "-5", "3600.5", "1e18"],
    "--pass-threshold": ["-0.1", "1.01", "2", "-1"],
}
INT_OPTIONS: dict[str, tuple[str, list[str]]] = {  # flag: (the name its error uses, out-of-range values)
    "--max-tokens": ("--max-tokens", ["0", "-1", "1000001", "10" * 20]),
    "--max-retries": ("--max-retries", ["-1", "101", "1000000000"]),
    "-n": ("-n/--num-tasks", ["0", "-1", "1000001"]),
    "-r": ("-r/--rollouts", ["0", "-1", "1000000000000", str(MAX_EPISODES + 1)]),
    "-c": ("-c/--concurrency", ["0", "-1", "1025", "1000000"]),
    "--max-turns": ("--max-turns", ["0", "-1", "1000000001"]),
    "--source": ("--source", ["-1", "100", "1000000"]),
    "--seed": ("--seed", ["-1", str(2**32), str(10**40)]),
    "--episode-retries": ("--episode-retries", ["-1", "101", "100000"]),
}
NOT_WHOLE = ["nan", "inf", "1.5", "1e3", "abc", "", "0x10"]
JSON_OPTIONS = ["--extra-body", "--env-kwargs"]
BAD_JSON = [
    "[1]",
    "3",
    '"text"',
    "null",
    "true",
    "NaN",
    "{oops",
    "{'a': 1}",
    '{"a": NaN}',
    '{"a": Infinity}',
    "[" * 100_000,
    '{"a": ' * 40 + "1" + "}" * 40,
    '{"a": "' + "x" * 200_000 + '"}',
    '{"a": ' + "9" * 5_000 + "}",
    '{"a": "\\ud800"}',
]


def cases() -> list[tuple[list[str], str]]:
    """(the arguments after ``eval ENV_ID`` or ``run``, the option the line must name)."""
    found: list[tuple[list[str], str]] = []
    for flag, out_of_range in FLOAT_OPTIONS.items():
        for value in [*NOT_FINITE, *NOT_NUMBERS, *out_of_range]:
            found.append(([*LOCAL, f"{flag}={value}"], flag))
    for flag, (name, out_of_range) in INT_OPTIONS.items():
        for value in [*NOT_WHOLE, *out_of_range]:
            given = [f"{flag}={value}"] if flag.startswith("--") else [flag, value]
            found.append((["--policy", "oracle", *given], name))
    for flag in JSON_OPTIONS:
        for text in BAD_JSON:
            prefix = LOCAL if flag == "--extra-body" else ["--policy", "oracle"]
            found.append(([*prefix, flag, text], flag))
    found += [
        (["--policy", "oracle", "-r", "500000"], "-r/--rollouts"),  # fine alone, too many episodes with the tasks
        (["--policy", "oracle", "-r", str(MAX_EPISODES)], "-r/--rollouts"),
        (["--policy", "oracle", "-n", "1", "-r", str(MAX_EPISODES), "-c", "0"], "-c/--concurrency"),
        ([*LOCAL, "--api", "fast"], "--api"),
        (["--policy", "nobody"], "--policy"),
    ]
    return found


RUN_SEEDS = ["-1", "nan", "abc", "", "1.5", str(2**32), str(10**30)]
CASES = cases()


def test_the_table_covers_every_numeric_option_with_at_least_150_inputs() -> None:
    named = {name for _, name in CASES}
    assert set(RANGES) <= named and len(CASES) + len(RUN_SEEDS) >= 150


@pytest.mark.parametrize(("argv", "option"), CASES, ids=[" ".join(a)[-60:] for a, _ in CASES])
def test_eval_refuses_with_one_line_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], option: str
) -> None:
    out = tmp_path / "out"
    assert one_line_exit(["eval", INVOICE, "-q", "-o", str(out), *argv], capsys, option)
    assert not out.exists()


@pytest.mark.parametrize("seed", RUN_SEEDS)
def test_run_refuses_a_bad_seed_with_one_line(capsys: pytest.CaptureFixture[str], seed: str) -> None:
    assert one_line_exit(["run", INVOICE, f"--seed={seed}"], capsys, "--seed")


def one_line_exit(argv: list[str], capsys: pytest.CaptureFixture[str], option: str) -> bool:
    code: int | str | None
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code  # argparse's own errors
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2, (argv[-1][:60], err[:300])
    assert len(lines) == 1 and "Traceback" not in err, err[:600]
    assert option in lines[0] and len(lines[0]) < 400, lines[0]
    return True


@pytest.mark.parametrize("flag", sorted(RANGES))
def test_each_range_accepts_its_ends_and_refuses_past_them(flag: str) -> None:
    limits: Range = RANGES[flag]
    for value in (limits.high, *([] if limits.above_low else [limits.low])):
        assert limits.problem(int(value) if limits.whole else float(value)) is None
    for value in (limits.high + 1, limits.low - 1, float("nan"), float("inf"), True):
        assert limits.problem(value) is not None and flag in str(limits.problem(value))
