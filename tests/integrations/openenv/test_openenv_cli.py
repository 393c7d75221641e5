"""``officegym serve``: bad input is one ``Error:`` line and exit code 2, before any port is opened; without
the extra, the error names the command that installs it. (The load test runs the command for real.)"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from officegym.cli import main

from .conftest import ENV_IDS

needs_openenv = pytest.mark.skipif(
    not __import__("importlib").util.find_spec("openenv"), reason="needs the openenv extra"
)


@needs_openenv
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--env-kwargs", "{not json"], "--env-kwargs is not valid JSON"),
        (["--env-kwargs", "[1]"], "--env-kwargs must be a JSON object, got list"),
        (["--env-kwargs", '{"no_such_option": 1}'], "no_such_option"),
        (["--max-sessions", "0"], "--max-sessions must be at least 1"),
        (["--session-timeout", "0"], "--idle-timeout must be a positive number"),
        (["--port", "70000"], "--port must be between 0 and 65535"),
    ],
)
def test_bad_options_are_one_error_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    assert main(["serve", ENV_IDS[0], *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1


@needs_openenv
def test_a_port_in_use_is_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve", ENV_IDS[0], "--port", str(port)]) == 2
    assert f"Error: cannot listen on http://127.0.0.1:{port}" in capsys.readouterr().err


def test_an_unknown_env_id_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "officegym/NoSuchEnv-v0"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_without_openenv_the_module_imports_and_serving_names_the_extra() -> None:
    """The package's modules import without the extra (the suite imports all of them); serving says how to
    get it. A fresh process in which ``import openenv`` fails."""
    code = (
        "import sys; sys.modules['openenv'] = None\n"
        "import officegym.integrations.openenv as m, officegym.integrations.openenv_server\n"
        "from officegym.cli import main\n"
        f"sys.exit(main(['serve', {ENV_IDS[0]!r}, '--port', '0']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert "pip install 'officegym[openenv]'" in done.stderr and done.stderr.startswith("Error: ")
