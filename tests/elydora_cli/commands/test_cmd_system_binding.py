"""``agent provision --scope system``: a user's identity ``<agent>@<user>`` bound to a server by root, from files.

Real files below ``--root`` and the test kit's fake server. The hooks run as the test's user (root here); the
ownership test provisions ``nobody`` in a sandbox every user can traverse.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora, ServerState
from elydora_testkit.runtime_helpers import wait_until

from elydora_cli import identity, managed
from elydora_cli.main import main
from elydora_cli.runtime.provision import provision
from elydora_config import keys

TOKEN = "tok-fleet-0123456789abcdef"
CLAUDE_PRE = {"hook_event_name": "PreToolUse", "transcript_path": "/t", "tool_name": "Bash", "session_id": "s1"}
CLAUDE_POST = {**CLAUDE_PRE, "hook_event_name": "PostToolUse", "tool_response": {"ok": True}}
ME = pwd.getpwuid(os.getuid())


@pytest.fixture
def server() -> Iterator[FakeElydora]:
    fake = FakeElydora(ServerState(token=TOKEN, org_id="org-1")).start()
    yield fake
    fake.stop()


@pytest.fixture
def sandbox() -> Iterator[Path]:
    """A root every user can traverse (pytest's own tmp dirs are root's only), with the system install done."""
    base = Path(tempfile.mkdtemp(prefix="elydora-bind-"))
    base.chmod(0o755)
    home_root = base / "root"
    home_root.mkdir(mode=0o755)
    assert main(["install", "claude", "--scope", "system", "--root", str(home_root), "--python", sys.executable]) == 0
    yield base
    shutil.rmtree(base)


def secret(path: Path, text: str, mode: int = 0o600) -> str:
    path.write_text(text + "\n")
    path.chmod(mode)
    return str(path)


def register(server: FakeElydora, sandbox: Path, user: str) -> str:
    """The agent ``claudecode@<user>`` registered on the server; its private key in an owner-only file."""
    key = keys.generate_private_key()
    server.state.add_agent(managed.user_dir_name("claudecode", user), "org-1", "kid-1", key.public_key())
    return secret(sandbox / f"{user}.key", keys.encode_private_key(key))


def home(sandbox: Path, user: pwd.struct_passwd) -> Path:
    path = managed.user_home(user.pw_dir, sandbox / "root")
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, user.pw_uid, user.pw_gid)
    return path


def provision_cli(sandbox: Path, server: FakeElydora, user: str, key_file: str, *extra: str,
                  token: Path | None = None) -> int:
    if token is None:
        token = sandbox / "token"
        if not token.exists():
            secret(token, TOKEN)
    return main([
        "--json", "agent", "provision", "--scope", "system", "--provider", "claude", "--user", user,
        "--root", str(sandbox / "root"), "--base-url", server.base_url, "--org-id", "org-1", "--kid", "kid-1",
        "--token-file", str(token), "--private-key-file", key_file, *extra,
    ])  # fmt: skip


def provisioned(sandbox: Path, server: FakeElydora) -> tuple[Path, str]:
    """The test's user registered on the server and provisioned: (their state directory, their key file)."""
    key_file = register(server, sandbox, ME.pw_name)
    state = state_of(sandbox, ME)
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0
    return state, key_file


def state_of(sandbox: Path, user: pwd.struct_passwd) -> Path:
    return home(sandbox, user) / ".elydora" / managed.user_dir_name("claudecode", user.pw_name)


def marker(sandbox: Path, user: str) -> Path:
    runtime = managed.placed(managed.RUNTIME_ROOT, sandbox / "root") / "claudecode"
    return runtime / managed.BINDINGS / f"{user}.json"


def run_hook(sandbox: Path, script: str, event: dict[str, object]) -> subprocess.CompletedProcess[bytes]:
    launcher = managed.placed(managed.RUNTIME_ROOT, sandbox / "root") / "claudecode" / script
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return subprocess.run([str(launcher)], input=json.dumps(event).encode(), capture_output=True, env=env, timeout=30)


def probe(sandbox: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["status", "claude", "--scope", "system", "--json", "--root", str(sandbox / "root")])
    rows = json.loads(capsys.readouterr().out)["providers"]
    return code, rows[0]


def test_provision_writes_the_users_bound_state_owner_only_and_is_idempotent(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = register(server, sandbox, ME.pw_name)
    home(sandbox, ME)
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    state = state_of(sandbox, ME)
    assert doc["agent_id"] == f"claudecode@{ME.pw_name}" and doc["agent_dir"] == str(state)
    assert sorted(doc["changed"]) == sorted([str(state / "config.json"), str(state / "private.key"),
                                             str(marker(sandbox, ME.pw_name))])
    config = identity.read_config(state)
    assert (config.base_url, config.org_id, config.kid, config.token) == (server.base_url, "org-1", "kid-1", TOKEN)
    for path, mode in ((state.parent, 0o700), (state, 0o700), (state / "config.json", 0o600),
                       (state / "private.key", 0o600), (marker(sandbox, ME.pw_name), managed.POLICY_MODE)):
        assert stat.S_IMODE(os.lstat(path).st_mode) == mode, path
    assert TOKEN not in marker(sandbox, ME.pw_name).read_text() and TOKEN not in out + err
    before = {p: p.read_bytes() for p in (state / "config.json", state / "private.key", marker(sandbox, ME.pw_name))}
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0  # a second run: no byte changes
    assert json.loads(capsys.readouterr().out)["changed"] == []
    assert {p: p.read_bytes() for p in before} == before
    secret(sandbox / "token", TOKEN + "-rotated")  # a new token: the same identity, config.json updated in place
    server.state.token = TOKEN + "-rotated"
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == [str(state / "config.json")]
    assert (state / "private.key").read_bytes() == before[state / "private.key"]


def test_files_are_owned_by_the_user_provisioned(sandbox: Path, server: FakeElydora) -> None:
    nobody = pwd.getpwnam("nobody")
    key_file = register(server, sandbox, "nobody")
    state = state_of(sandbox, nobody)
    state.mkdir(parents=True, mode=0o700)  # leftovers of an earlier identity: moved aside, as the user
    (state / "ledger.jsonl").write_text("earlier chain\n")
    for path in (state.parent, state, state / "ledger.jsonl"):
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    assert provision_cli(sandbox, server, "nobody", key_file) == 0
    for path in (state.parent, state, state / "config.json", state / "private.key"):
        info = os.lstat(path)
        assert (info.st_uid, info.st_gid) == (nobody.pw_uid, nobody.pw_gid), path
    (aside,) = state.parent.glob(f"{state.name}.replaced-*")
    assert (aside / "ledger.jsonl").read_text() == "earlier chain\n" and not (state / "ledger.jsonl").exists()
    assert os.lstat(marker(sandbox, "nobody")).st_uid == 0
    assert os.geteuid() == 0 and os.getegid() == 0  # root's own rights are back


def test_a_link_the_user_planted_is_not_followed_with_roots_rights(sandbox: Path, server: FakeElydora,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    nobody = pwd.getpwnam("nobody")
    key_file = register(server, sandbox, "nobody")
    target = sandbox / "root-only"
    target.mkdir(mode=0o700)
    (home(sandbox, nobody) / ".elydora").symlink_to(target)
    assert provision_cli(sandbox, server, "nobody", key_file) == 1
    err = capsys.readouterr().err
    assert err.count("Error:") == 1 and "is not a directory of the user being provisioned" in err
    assert list(target.iterdir()) == [] and not marker(sandbox, "nobody").exists()


@pytest.mark.parametrize("case", ["unregistered", "key-group-readable", "token-missing", "wrong-token"])
def test_refusals_are_one_error_line_and_write_nothing(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    key_file = register(server, sandbox, ME.pw_name)
    home(sandbox, ME)
    expected = {
        "unregistered": "does not exist on the server (404)",
        "key-group-readable": "accessible by other users",
        "token-missing": "token file does not exist",
        "wrong-token": "the server refuses the token (401",
    }[case]
    if case == "unregistered":
        server.state.agents.clear()
    elif case == "key-group-readable":
        os.chmod(key_file, 0o640)
    else:
        secret(sandbox / "token", "tok-wrong-0123456789")
    token = sandbox / "absent" if case == "token-missing" else None
    assert provision_cli(sandbox, server, ME.pw_name, key_file, token=token) == 1
    out, err = capsys.readouterr()
    assert err.count("Error:") == 1 and expected in err and "Traceback" not in err, err
    assert TOKEN not in out + err and Path(key_file).read_text().strip() not in out + err
    assert not state_of(sandbox, ME).exists() and not marker(sandbox, ME.pw_name).exists()


def test_unknown_user_and_missing_install_are_refused(sandbox: Path, server: FakeElydora,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    key_file = register(server, sandbox, ME.pw_name)
    assert provision_cli(sandbox, server, "no-such-user-x", key_file) == 1
    assert "user 'no-such-user-x' does not exist" in capsys.readouterr().err
    shutil.rmtree(sandbox / "root" / managed.RUNTIME_ROOT.lstrip("/"))
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 1
    assert "holds no system-scope install" in capsys.readouterr().err


def test_records_are_delivered_naming_the_user_and_first_use_keeps_the_provisioned_state(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    state, _key_file = provisioned(sandbox, server)
    config_bytes = (state / "config.json").read_bytes()
    assert run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 0
    assert run_hook(sandbox, "hook.py", CLAUDE_POST).returncode == 0
    agent = server.state.agents[state.name]
    assert wait_until(lambda: len(agent.records) == 1), sorted(os.listdir(state))
    assert agent.records[0]["agent_id"] == state.name == f"claudecode@{ME.pw_name}"
    assert (state / "config.json").read_bytes() == config_bytes  # first use kept the provisioned identity
    assert provision(str(state), "claudecode") is False
    code, row = probe(sandbox, capsys)
    bound = row["bound_users"][ME.pw_name]  # type: ignore[index]
    assert code == 0 and row["delivering"] and bound["delivering"] and bound["delivery"]["last_accepted"]["seq"] == 1


def test_a_deleted_bound_state_is_not_replaced_by_a_local_one_and_the_probe_says_so(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    state, key_file = provisioned(sandbox, server)
    shutil.rmtree(state)  # the user deletes their state
    state.mkdir(mode=0o700)
    (state / "spool.jsonl").write_bytes(b'\n1 {"tool_name": "Bash"}\n')
    with pytest.raises(identity.IdentityError, match="has lost the server identity root provisioned"):
        provision(str(state), "claudecode")
    assert not (state / "config.json").exists() and (state / "spool.jsonl").exists()  # the events wait
    code, row = probe(sandbox, capsys)
    assert code == 1 and not row["delivering"] and row["state"] == "unhealthy"
    assert "is not the identity root provisioned" in row["bound_users"][ME.pw_name]["problems"][0]  # type: ignore[index]
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0  # provisioned again: the spool is adopted
    assert (state / "spool.jsonl").exists() and identity.read_config(state).base_url == server.base_url


def test_a_first_use_local_identity_is_kept_aside_when_root_binds_the_user(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    key_file = register(server, sandbox, ME.pw_name)
    state = state_of(sandbox, ME)
    assert run_hook(sandbox, "hook.py", CLAUDE_POST).returncode == 0
    assert wait_until(lambda: (state / "ledger.jsonl").exists())
    ledger = (state / "ledger.jsonl").read_bytes()
    capsys.readouterr()
    assert provision_cli(sandbox, server, ME.pw_name, key_file, "--dry-run") == 0
    dry = json.loads(capsys.readouterr().out)
    assert dry["replaced"] and not Path(dry["replaced"]).exists() and identity.read_config(state).is_local
    assert provision_cli(sandbox, server, ME.pw_name, key_file) == 0
    done = json.loads(capsys.readouterr().out)
    assert (Path(done["replaced"]) / "ledger.jsonl").read_bytes() == ledger  # the local chain, kept whole
    assert not identity.read_config(state).is_local


def test_a_user_whose_delivery_the_server_stops_is_not_delivering(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    state, _key_file = provisioned(sandbox, server)
    server.state.agents[state.name].status = "frozen"  # frozen on the server: 403 AGENT_FROZEN from now on
    assert run_hook(sandbox, "hook.py", CLAUDE_POST).returncode == 0
    assert wait_until(lambda: (state / "delivery-stopped").exists())
    code, row = probe(sandbox, capsys)
    bound = row["bound_users"][ME.pw_name]  # type: ignore[index]
    assert code == 1 and not row["delivering"] and not bound["delivering"]
    assert "delivery stopped" in bound["problems"][0] and bound["delivery"]["stopped"]
    assert any(p.startswith(f"user {ME.pw_name}: delivery stopped") for p in row["problems"])  # type: ignore[attr-defined]


def test_a_home_the_user_cannot_write_is_one_error_line(sandbox: Path, server: FakeElydora,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    nobody = pwd.getpwnam("nobody")
    key_file = register(server, sandbox, "nobody")
    os.chown(home(sandbox, nobody), 0, 0)  # root's, 0755: the user could not write it, so neither do we
    assert provision_cli(sandbox, server, "nobody", key_file) == 1
    err = capsys.readouterr().err
    assert err.count("Error:") == 1 and "Traceback" not in err and ".elydora" in err, err
    assert not (home(sandbox, nobody) / ".elydora").exists()


def test_a_freeze_on_the_server_blocks_a_bound_user_and_root_policy_still_counts(
    sandbox: Path, server: FakeElydora
) -> None:
    state, _key_file = provisioned(sandbox, server)
    cache = state / "status-cache.json"
    assert run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 0  # root's policy; the server is asked aside
    assert wait_until(lambda: cache.exists()) and json.loads(cache.read_text())["status"] == "active"
    server.state.agents[state.name].status = "frozen"
    cache.unlink()  # the next call starts a refresh, the one after it decides with the server's answer
    assert run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 0 and wait_until(lambda: cache.exists())
    blocked = run_hook(sandbox, "guard.py", CLAUDE_PRE)
    assert blocked.returncode == 2 and b"frozen" in blocked.stderr
    server.state.agents[state.name].status = "active"
    cache.unlink()
    run_hook(sandbox, "guard.py", CLAUDE_PRE)
    assert wait_until(lambda: cache.exists()) and run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 0
    server.stop()  # the server unreachable with a known answer: the last known status applies, root's too
    assert main(["agent", "freeze", "--provider", "claude", "--scope", "system", "--root", str(sandbox / "root")]) == 0
    assert run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 2


def test_a_bound_user_whose_server_never_answered_is_decided_by_roots_policy(
    sandbox: Path, server: FakeElydora
) -> None:
    state, _key_file = provisioned(sandbox, server)
    server.stop()
    assert run_hook(sandbox, "guard.py", CLAUDE_PRE).returncode == 0  # active by root's policy, not blocked offline
    assert not (state / "status-cache.json").exists()


def test_the_probe_reports_a_bound_users_refused_status_query(
    sandbox: Path, server: FakeElydora, capsys: pytest.CaptureFixture[str]
) -> None:
    state, _key_file = provisioned(sandbox, server)
    assert probe(sandbox, capsys)[0] == 0  # not used yet: no status read, and that is no problem
    cache = {"status": "active", "cached_at": 1.0, "checked_at": 2.0, "query_error": "HTTP 401 UNAUTHORIZED",
             "query_failing_since": 1.0}
    (state / "status-cache.json").write_text(json.dumps(cache))
    code, row = probe(sandbox, capsys)
    bound = row["bound_users"][ME.pw_name]  # type: ignore[index]
    assert code == 1 and not bound["delivering"] and "refuses the status query" in bound["problems"][0]
