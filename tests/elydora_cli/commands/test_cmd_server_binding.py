"""``agent create --base-url`` refuses bindings that cannot work; ``status`` reports server health (issue 14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import READER, FakeElydora, ServerState

from elydora_cli.main import main
from elydora_config import keys


@pytest.fixture
def fake_server() -> FakeElydora:
    server = FakeElydora(ServerState(token="tok-bind-0123456789", org_id="org-7")).start()
    yield server  # type: ignore[misc]
    server.stop()


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _secret(path: Path, text: str) -> str:
    path.write_text(text + "\n")
    path.chmod(0o600)
    return str(path)


def _create(
    capsys: pytest.CaptureFixture[str],
    root: Path,
    server: FakeElydora,
    *,
    org: str = "org-7",
    kid: str = "kid-7",
    key: str | None = None,
) -> tuple[int, str, str]:
    registered = keys.generate_private_key()
    if "claudecode" not in server.state.agents:
        server.state.add_agent("claudecode", "org-7", "kid-7", registered.public_key())
    key_text = key or keys.encode_private_key(registered)
    return _cli(
        capsys, "agent", "create", "--provider", "claudecode", "--state-root", str(root), "--base-url", server.base_url,
        "--org-id", org, "--kid", kid, "--token-file", _secret(root / "token", server.state.token),
        "--private-key-file", _secret(root / "key", key_text),
    )  # fmt: skip


# -- 5. each binding that cannot work is refused, naming the mismatch, and nothing is written -------------------
@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ("org", "--org-id 'org-wrong' does not match the agent's organisation 'org-7'"),
        ("kid", "--kid 'kid-wrong' is not registered for this agent (registered: kid-7)"),
        ("key", "the private key is not the one registered for 'kid-7'"),
        ("revoked", "key 'kid-7' is revoked on the server"),
        ("role", "not submit records (403 FORBIDDEN"),
    ],
)
def test_create_refuses_a_binding_that_cannot_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_server: FakeElydora, change: str, needle: str
) -> None:
    options: dict[str, str] = {}
    if change == "org":
        options["org"] = "org-wrong"
    elif change == "kid":
        options["kid"] = "kid-wrong"
    elif change == "key":
        options["key"] = keys.encode_private_key(keys.generate_private_key())
    elif change == "role":
        fake_server.state.role = READER  # may read agents, may not submit operations
    if change == "revoked":
        (tmp_path / "first").mkdir()
        assert _create(capsys, tmp_path / "first", fake_server)[0] == 0
        agent = fake_server.state.agents["claudecode"]
        agent.keys["kid-7"] = ("revoked", agent.keys["kid-7"][1])
    (tmp_path / "state").mkdir()
    code, _out, err = _create(capsys, tmp_path / "state", fake_server, **options)
    assert code == 1 and needle in err and err.startswith("Error: ") and err.count("\n") == 1, err
    assert fake_server.state.token not in err
    assert not (tmp_path / "state" / ".elydora" / "claudecode").exists()


def test_create_accepts_a_working_binding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_server: FakeElydora
) -> None:
    code, _out, err = _create(capsys, tmp_path, fake_server)
    assert (code, err) == (0, "")
    cache = json.loads((tmp_path / ".elydora" / "claudecode" / "status-cache.json").read_text())
    assert cache["status"] == "active"
    assert fake_server.state.agents["claudecode"].records == []  # the role check stored nothing


# -- 6. status is unhealthy while delivery has stopped for good or the status cannot be refreshed -----------------
def test_status_reports_server_health(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_server: FakeElydora
) -> None:
    from elydora_cli.runtime import refresh

    home = tmp_path / "home"
    (tmp_path / "work").mkdir()
    home.mkdir()
    assert _create(capsys, home, fake_server)[0] == 0
    assert _cli(capsys, "install", "claudecode", "--root", str(home), "--repo-root", str(tmp_path / "work"))[0] == 0
    status = ("status", "claudecode", "--root", str(home), "--repo-root", str(tmp_path / "work"), "--json")
    code, out, _err = _cli(capsys, *status)
    [row] = json.loads(out)["providers"]
    server = row["audit"]["server"]
    assert code == 0 and server["healthy"] and server["status_query"]["healthy"]
    fake_server.state.token = "tok-rotated"  # the token is refused from now on
    assert refresh.refresh(str(home / ".elydora" / "claudecode")) is None
    code, out, _err = _cli(capsys, *status)
    [row] = json.loads(out)["providers"]
    assert code == 1 and row["state"] == "unguarded"  # the guard can no longer learn the agent's state
    assert "the server refuses the status query (401 UNAUTHORIZED)" in row["problems"]
    code, out, _err = _cli(capsys, *status[:-1])
    assert code == 1 and "status query: the server refuses the status query (401 UNAUTHORIZED)" in out
