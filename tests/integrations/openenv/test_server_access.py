"""Issue 27, the server: no authentication and no ``Origin`` check (a WebSocket claiming
``http://evil.example`` played a reset), and ``--host 0.0.0.0`` opened all of it to the network. Now browser
origins other than loopback and the server's own are refused, a tokenless server serves loopback peers and
loopback ``Host`` names only, a token is required to listen beyond loopback, and officegym's OpenEnv clients
send it (OpenEnv's plain clients, which send no header, keep working on a tokenless loopback server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("openenv", reason="the OpenEnv server needs the openenv extra: pip install 'officegym[openenv]'")

from websockets.exceptions import InvalidStatus

from officegym.cli import main
from officegym.integrations.server_limits import ServerLimits, is_loopback

from .conftest import HANG_GUARD, gold_path, one_task_per_tier
from .server_clients import host_port, http, raw_ws, reset, text_of

ENV_ID = "officegym/InvoiceApproval-v0"
TOKEN = "s3cret-token-for-the-tests-only"


@pytest.fixture(scope="module")
def open_url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID) as base:
        yield base


@pytest.fixture(scope="module")
def token_url() -> Iterator[str]:
    from officegym.integrations.openenv_server import running_server

    with running_server(ENV_ID, limits=ServerLimits(token=TOKEN)) as base:
        yield base


@pytest.mark.parametrize("origin", ["http://evil.example", "https://evil.example:8000", "null", "file://"])
def test_a_foreign_browser_origin_is_refused_on_the_websocket_and_over_http(open_url: str, origin: str) -> None:
    with pytest.raises(InvalidStatus) as refused, raw_ws(open_url, additional_headers={"Origin": origin}):
        pass
    assert refused.value.response.status_code == 403
    with http(open_url) as client:
        answer = client.post("/reset", json={}, headers={"Origin": origin})
    assert answer.status_code == 403 and "may not use this server" in answer.json()["detail"]


def test_loopback_and_own_origins_and_no_origin_are_served(open_url: str) -> None:
    _, port = host_port(open_url)
    task_id = one_task_per_tier(ENV_ID)[0]
    for origin in [f"http://localhost:{port}", f"http://127.0.0.1:{port}", "http://[::1]:3000", None]:
        headers = {} if origin is None else {"Origin": origin}
        with raw_ws(open_url, additional_headers=headers) as ws:
            assert text_of(reset(ws, task_id))


def test_a_tokenless_server_refuses_a_host_beyond_loopback_dns_rebinding(open_url: str) -> None:
    _, port = host_port(open_url)
    own = f"evil.example:{port}"  # a page on a name that resolves to 127.0.0.1: its origin equals its Host
    with http(open_url) as client:
        answer = client.post("/reset", json={}, headers={"Host": own, "Origin": f"http://{own}"})
        health = client.get("/health")
    assert answer.status_code == 403 and "not loopback" in answer.json()["detail"]
    assert health.status_code == 200


def test_with_a_token_every_request_but_health_needs_it(token_url: str) -> None:
    with http(token_url) as client:
        missing = client.post("/reset", json={})
        wrong = client.post("/reset", json={}, headers={"Authorization": "Bearer nope"})
        right = client.post("/reset", json={}, headers={"Authorization": f"Bearer {TOKEN}"})
        health = client.get("/health")
    assert (missing.status_code, wrong.status_code, right.status_code, health.status_code) == (401, 401, 200, 200)
    assert "no Authorization header" in missing.json()["detail"] and "wrong token" in wrong.json()["detail"]
    assert missing.headers["www-authenticate"] == "Bearer" and TOKEN not in wrong.text
    with pytest.raises(InvalidStatus) as refused, raw_ws(token_url):
        pass
    assert refused.value.response.status_code == 403
    with raw_ws(token_url, additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
        assert text_of(reset(ws, one_task_per_tier(ENV_ID)[0]))


def test_officegyms_clients_send_the_token_and_openenvs_plain_client_cannot(token_url: str, open_url: str) -> None:
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.generic_client import GenericEnvClient

    from officegym.integrations.openenv import OfficeGymClient, OfficeGymToolClient

    task_id = one_task_per_tier(ENV_ID)[0]
    gold = gold_path(ENV_ID, task_id)
    with OfficeGymClient(token_url, token=TOKEN, message_timeout_s=HANG_GUARD).sync() as client:
        client.reset(task_id=task_id, seed=0)
        results = [client.step(call) for call in gold]
    assert results[-1].reward == 1.0
    with OfficeGymToolClient(token_url, token=TOKEN, message_timeout_s=HANG_GUARD).sync() as tools:
        assert [tool.name for tool in tools.list_tools()][-1] == "finish"
        tools.reset(task_id=task_id)
        answer = tools.step(CallToolAction(tool_name=gold[0]["name"], arguments=gold[0]["arguments"]))
        assert answer.observation.text
    with pytest.raises(ConnectionError), GenericEnvClient(base_url=token_url).sync():
        pass
    with GenericEnvClient(base_url=open_url).sync() as plain:  # loopback, no token: unchanged
        assert plain.reset(task_id=task_id, seed=0).observation["text"]


def test_the_token_comes_from_the_environment_when_not_given(token_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from officegym.integrations.openenv import OfficeGymClient

    monkeypatch.setenv("OFFICEGYM_SERVE_TOKEN", TOKEN)
    with OfficeGymClient(token_url, message_timeout_s=HANG_GUARD).sync() as client:
        assert client.reset(task_id=one_task_per_tier(ENV_ID)[0], seed=0).observation.text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--host", "0.0.0.0"], "--host 0.0.0.0 serves beyond loopback, so it needs a token"),
        (["--host", "::"], "needs a token: pass --token or set OFFICEGYM_SERVE_TOKEN"),
        (["--token", "short"], "--token must be at least 16 printable characters"),
        (["--idle-timeout", "nan"], "--idle-timeout must be a positive number"),
        (["--max-sessions-per-client", "0"], "--max-sessions-per-client must be at least 1"),
        (["--max-body-bytes", "10"], "--max-body-bytes must be at least 1024"),
        (["--header-timeout", "-1"], "--header-timeout must be a positive number"),
        (["--client-bytes-per-s", "100"], "--client-bytes-per-s must be at least 1024"),
        (["--client-sessions-per-s", "0"], "--client-sessions-per-s must be a positive number"),
        (["--client-sessions-per-s", "inf"], "--client-sessions-per-s must be a positive number"),
    ],
)
def test_serve_refuses_to_start_exposed_or_misconfigured_with_one_line(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OFFICEGYM_SERVE_TOKEN", raising=False)
    assert main(["serve", ENV_ID, "--port", "0", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Error: ") and message in err and err.count("\n") == 1, err


def test_loopback_is_recognised_by_name_and_address() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost", "LOCALHOST"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "10.0.0.1", "example.com", "", "127.0.0.1.evil"]))


def test_the_help_says_what_is_exposed_and_how_it_is_protected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    phrases = ["What is exposed", "How it is protected", "--token", "Origin", "--idle-timeout", "no TLS"]
    for phrase in [*phrases, "--client-bytes-per-s", "--client-sessions-per-s", "held back"]:
        assert phrase in text


def test_a_space_or_container_refuses_every_interface_without_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from officegym.integrations.openenv_server import SpaceConfig, space_main

    monkeypatch.delenv("OFFICEGYM_SERVE_TOKEN", raising=False)
    config = SpaceConfig.from_environ({"OFFICEGYM_ENV_ID": ENV_ID})
    assert config.token is None and config.limits.token is None
    with pytest.raises(SystemExit) as refused:
        space_main(None, config, ["--host", "0.0.0.0"])
    assert "OFFICEGYM_SERVE_TOKEN" in str(refused.value) and str(refused.value).startswith("Error: ")
    assert SpaceConfig.from_environ({"OFFICEGYM_SERVE_TOKEN": TOKEN}).limits.token == TOKEN


def test_a_clipped_value_names_its_length_and_never_repeats_more_than_80_characters() -> None:
    from officegym.integrations.server_limits import clip

    assert clip("abc") == "'abc'"
    long = clip("x" * 20_000_000)
    assert long.startswith("'xxx") and long.endswith("... (20000002 chars)") and len(long) < 110
