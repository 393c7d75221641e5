"""The eval harness's own cost: ``python -m benchmarks.eval_harness``.

The oracle answers as a model through the tests' loopback OpenAI-compatible server; ``officegym eval`` drives
it with the real ``openai`` client on all 60 InvoiceApproval tasks, then ``officegym replay`` re-executes and
re-grades every stored episode. With a model that answers instantly, what remains is the harness: the
client, HTTP on loopback, the chat wrapper, parsing, the env, and writing the records. Writes
``benchmarks/results/eval_harness.json``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from officegym.cli import main as officegym
from officegym.envs.invoice_approval.v0.bundle import load_bundle

ENV_ID = "officegym/InvoiceApproval-v0"
RESULTS = Path(__file__).parent / "results"


def fake_server() -> Any:
    """The tests' loopback server module, loaded from its file (tests/ is not a package of officegym)."""
    path = Path(__file__).parent.parent / "tests" / "fake_openai_server.py"
    spec = importlib.util.spec_from_file_location("officegym_bench_fake_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def run(concurrency: int = 4) -> dict[str, Any]:
    fake = fake_server()
    tasks = list(load_bundle().tasks)
    os.environ["OFFICEGYM_BENCH_KEY"] = "not-a-secret"
    book = fake.oracle_book(ENV_ID, tasks)
    with tempfile.TemporaryDirectory() as out, fake.FakeOpenAIServer(book, lifetime=600) as server:
        start = time.perf_counter()
        code = officegym(
            [
                "eval",
                ENV_ID,
                "-m",
                "oracle-as-a-model",
                "-b",
                server.base_url,
                "-k",
                "OFFICEGYM_BENCH_KEY",
                "-c",
                str(concurrency),
                "-o",
                out,
                "-q",
            ]
        )
        eval_s = time.perf_counter() - start
        (results,) = Path(out).glob("*.jsonl")
        records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
        start = time.perf_counter()
        replay_code = officegym(["replay", str(results)])
        replay_s = time.perf_counter() - start
    calls = sum(r["requests"] for r in records)
    return {
        "tasks": len(records),
        "mean_reward": sum(r["reward"] for r in records) / len(records),
        "model_calls": calls,
        "concurrency": concurrency,
        "eval_s": round(eval_s, 2),
        "calls_per_s": round(calls / eval_s),
        "ms_per_call": round(1000 * eval_s / calls, 2),
        "replay_s": round(replay_s, 2),
        "exit_codes": [code, replay_code],
    }


if __name__ == "__main__":
    result = run()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "eval_harness.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
