"""``elydora agent create|show|freeze|unfreeze|revoke`` end to end (in-process CLI, real files)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit.fake_elydora_server import FakeElydora, ServerState
from elydora_testkit.platforms import NO_MODES, WINDOWS, posix_only

from elydora_cli import identity
from elydora_cli.commands.options import HOME_VARIABLE
from elydora_cli.main import main
from elydora_cli.runtime import generate, runtime_argv
from elydora_config import keys


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _secret_file(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _has_mode(path: Path, mode: int) -> bool:
    """The permission bits are ``mode`` (Windows: always, it keeps none but the read-only attribute)."""
    return WINDOWS or _mode(path) == mode


def test_create_local_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "agent", "create", "--provider", "gemini", "--state-root", str(tmp_path))
    assert (code, err) == (0, "")
    directory = tmp_path / ".elydora" / "gemini"
    assert str(directory) in out and _has_mode(directory, 0o700)
    config = json.loads((directory / "config.json").read_text())
    key = identity.read_private_key(directory)
    assert config == {
        "org_id": "local",
        "agent_id": "gemini",
        "kid": identity.key_id(key),
        "base_url": None,
        "agent_name": "gemini",
    }
    assert json.loads((directory / "status.json").read_text())["status"] == "active"
    for name in ("config.json", "private.key", "status.json"):
        assert _has_mode(directory / name, 0o600)
    for name, (data, mode) in generate("gemini", directory, sys.executable).items():
        assert (directory / name).read_bytes() == data and _has_mode(directory / name, mode)


def test_create_uses_root_when_no_state_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, _err = _cli(
        capsys, "agent", "create", "--provider", "kimi", "--agent-id", "k2", "--root", str(tmp_path)
    )
    assert code == 0 and (tmp_path / ".elydora" / "k2" / "config.json").is_file()


@pytest.mark.parametrize("agent_id", [" lead", "con", "a/b", "x.", "..", "tab\there", 'q"'])
def test_unsafe_agent_ids_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], agent_id: str) -> None:
    code, out, err = _cli(
        capsys, "agent", "create", "--provider", "codex", "--agent-id", agent_id, "--root", str(tmp_path)
    )
    assert code == 2 and out == "" and err.startswith("Error: ") and err.count("\n") == 1  # a usage error
    assert not (tmp_path / ".elydora").exists() or list((tmp_path / ".elydora").glob("*/config.json")) == []


def test_second_create_is_refused_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(capsys, "agent", "create", "--provider", "droid", "--root", str(tmp_path))[0] == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / ".elydora" / "droid").iterdir()}
    code, _out, err = _cli(capsys, "agent", "create", "--provider", "droid", "--root", str(tmp_path))
    assert code == 1 and "already exists" in err
    assert {p.name: p.read_bytes() for p in (tmp_path / ".elydora" / "droid").iterdir()} == before


def test_unknown_provider(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _cli(capsys, "agent", "create", "--provider", "vim", "--root", str(tmp_path))
    assert code == 2 and "unknown provider 'vim'" in err  # a usage error


@pytest.mark.parametrize(
    "argv",
    [
        ["--token", "SEKRIT-VALUE-123"],
        ["--token=SEKRIT-VALUE-123"],
        ["--private-key", "SEKRIT-VALUE-123"],
        ["--base-url", "http://127.0.0.1:9", "--token", "SEKRIT-VALUE-123"],
    ],
)
def test_secrets_in_argv_are_refused_without_echo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, out, err = _cli(capsys, "agent", "create", "--provider", "codex", "--root", str(tmp_path), *argv)
    assert code == 2 and "not accepted" in err
    assert "SEKRIT" not in out + err
    assert not (tmp_path / ".elydora" / "codex").exists()


def test_secret_flag_on_other_verbs_is_refused_without_echo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(capsys, "agent", "show", "--provider", "codex", "--token", "SEKRIT-VALUE-123")
    assert code == 2 and "SEKRIT" not in out + err


@pytest.fixture
def fake_server() -> FakeElydora:
    server = FakeElydora(ServerState(token="tok-cmd-0123456789")).start()
    yield server  # type: ignore[misc]
    server.stop()


def _server_args(tmp_path: Path, server: FakeElydora, token_mode: int = 0o600) -> list[str]:
    key = keys.generate_private_key()
    server.state.add_agent("claudecode", "org-7", "kid-7", key.public_key())
    token = _secret_file(tmp_path / "token", server.state.token + "\n", token_mode)
    key_file = _secret_file(tmp_path / "key", keys.encode_private_key(key) + "\n")
    return ["--base-url", server.base_url, "--org-id", "org-7", "--kid", "kid-7",
            "--token-file", str(token), "--private-key-file", str(key_file)]  # fmt: skip


def test_create_server_agent_from_owner_only_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_server: FakeElydora
) -> None:
    args = _server_args(tmp_path, fake_server)
    code, out, err = _cli(capsys, "agent", "create", "--provider", "claudecode", "--root", str(tmp_path), *args)
    assert (code, err) == (0, "")
    assert fake_server.state.token not in out
    directory = tmp_path / ".elydora" / "claudecode"
    config = identity.read_config(directory)
    assert (config.base_url, config.org_id, config.kid, config.token) == (
        fake_server.base_url,
        "org-7",
        "kid-7",
        fake_server.state.token,
    )
    assert (directory / "private.key").read_text() == (tmp_path / "key").read_text()
    assert json.loads((directory / "status-cache.json").read_text())["status"] == "active"  # primed
    guard = subprocess.run(runtime_argv(sys.executable, directory / "guard.py"), input=b"{}", capture_output=True)
    assert guard.returncode == 0
    code, out, _err = _cli(capsys, "agent", "show", "--provider", "claudecode", "--root", str(tmp_path), "--json")
    shown = json.loads(out)
    assert shown["has_token"] is True and shown["status"] == "active (cached)"
    assert fake_server.state.token not in out


@pytest.mark.parametrize(
    ("content", "mode", "needle"),
    [
        pytest.param("tok-secret-abc\n", 0o644, "accessible by other users", marks=posix_only(NO_MODES)),
        ("tok-secret-abc\nsecond\n", 0o600, "exactly one non-empty line"),
        ("", 0o600, "exactly one non-empty line"),
        ("x" * (70 << 10), 0o600, "limit"),
    ],
)
def test_bad_token_files_are_refused_without_echo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, mode: int, needle: str
) -> None:
    token = _secret_file(tmp_path / "token", content, mode)
    key = _secret_file(tmp_path / "key", keys.encode_private_key(keys.generate_private_key()))
    code, out, err = _cli(
        capsys, "agent", "create", "--provider", "codex", "--root", str(tmp_path), "--base-url", "http://127.0.0.1:9",
        "--org-id", "o", "--kid", "k", "--token-file", str(token), "--private-key-file", str(key),
    )  # fmt: skip
    assert code == 1 and needle in err and "tok-secret" not in out + err and "xxxx" not in err
    assert not (tmp_path / ".elydora" / "codex").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["--base-url", "http://127.0.0.1:9"],
        ["--base-url", "http://127.0.0.1:9", "--org-id", "o", "--kid", "k"],
        ["--org-id", "o"],
        ["--token-file", "/dev/null"],
    ],
)
def test_flag_combinations(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _out, err = _cli(capsys, "agent", "create", "--provider", "codex", "--root", str(tmp_path), *argv)
    assert code == 2 and err.startswith("Error: ")


def test_hidden_prompt_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fake_server: FakeElydora
) -> None:
    key = keys.generate_private_key()
    fake_server.state.add_agent("codex", "org-1", "kid-1", key.public_key())
    answers = iter([fake_server.state.token, keys.encode_private_key(key)])
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", lambda prompt: next(answers))
    code, _out, err = _cli(
        capsys, "agent", "create", "--provider", "codex", "--root", str(tmp_path),
        "--base-url", fake_server.base_url, "--org-id", "org-1", "--kid", "kid-1",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert identity.read_config(tmp_path / ".elydora" / "codex").token == fake_server.state.token


def _guard(directory: Path) -> int:
    argv = runtime_argv(sys.executable, directory / "guard.py")
    return subprocess.run(argv, input=b"{}", capture_output=True, check=False).returncode


def test_freeze_unfreeze_revoke_change_what_the_guard_sees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--provider", "qwen", "--root", str(tmp_path)]
    directory = tmp_path / ".elydora" / "qwen"
    assert _cli(capsys, "agent", "create", *root)[0] == 0
    assert _guard(directory) == 0
    code, out, _err = _cli(capsys, "agent", "freeze", *root, "--reason", "incident 7")
    assert code == 0 and "frozen" in out and _guard(directory) == 2
    assert json.loads((directory / "status.json").read_text())["reason"] == "incident 7"
    assert _cli(capsys, "agent", "unfreeze", *root)[0] == 0 and _guard(directory) == 0
    assert _cli(capsys, "agent", "revoke", *root, "--yes")[0] == 0 and _guard(directory) == 2
    code, _out, err = _cli(capsys, "agent", "unfreeze", *root)
    assert code == 1 and "revoked for good" in err and _guard(directory) == 2
    code, out, _err = _cli(capsys, "agent", "show", *root)
    assert "status: revoked" in out and "base_url: null" in out


def test_status_change_of_a_missing_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = _cli(capsys, "agent", "freeze", "--agent-id", "ghost", "--root", str(tmp_path))
    assert code == 1 and "config.json" in err and "is missing" in err


def test_server_agent_cannot_be_frozen_locally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_server: FakeElydora
) -> None:
    args = _server_args(tmp_path, fake_server)
    assert _cli(capsys, "agent", "create", "--provider", "claudecode", "--root", str(tmp_path), *args)[0] == 0
    code, _out, err = _cli(capsys, "agent", "freeze", "--provider", "claudecode", "--root", str(tmp_path))
    assert code == 1 and "on the server" in err


def test_cli_entry_point_runs(tmp_path: Path) -> None:
    env = dict(os.environ, **{HOME_VARIABLE: str(tmp_path)})
    result = subprocess.run(
        [sys.executable, "-m", "elydora_cli", "agent", "create", "--provider", "letta"], env=env, capture_output=True
    )
    assert result.returncode == 0 and (tmp_path / ".elydora" / "letta" / "hook.py").is_file()


def test_leftover_state_without_config_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / ".elydora" / "cursor"
    directory.mkdir(parents=True, mode=0o700)
    (directory / "ledger.jsonl").write_bytes(b"{}\n")
    code, _out, err = _cli(capsys, "agent", "create", "--provider", "cursor", "--root", str(tmp_path))
    assert code == 1 and "ledger.jsonl" in err
    assert sorted(p.name for p in directory.iterdir()) == ["ledger.jsonl"]


def test_freeze_in_a_read_only_state_directory_names_status_json(tmp_path, capsys, monkeypatch):
    """``agent freeze`` where status.json cannot be written names that file, not the temporary file beside it."""
    import errno

    from elydora_config import _sysio

    assert main(["agent", "create", "--provider", "claude", "--root", str(tmp_path)]) == 0
    capsys.readouterr()
    original_open = _sysio.open_file

    def read_only(name, flags, *args, **kwargs):
        if flags & os.O_CREAT and "status.json" in name:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), name)
        return original_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(_sysio, "open_file", read_only)
    code = main(["agent", "freeze", "--provider", "claude", "--root", str(tmp_path)])
    err = capsys.readouterr().err
    status = tmp_path / ".elydora" / "claudecode" / "status.json"
    assert code == 1 and err == f"Error: {status}: Read-only file system\n"


def test_a_healthy_agents_files_are_not_repaired(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A reinstall, a freeze and an unfreeze of a healthy agent leave its identity files alone and report no
    repair; on Windows too, where every file's mode shows read and write for all (access is the folder's ACL)."""
    root = str(tmp_path)
    assert _cli(capsys, "install", "claudecode", "--root", root)[0] == 0
    directory = tmp_path / ".elydora" / "claudecode"
    before = {name: (directory / name).stat().st_mtime_ns for name in ("config.json", "private.key")}
    for argv in (["install", "claudecode"], ["agent", "freeze", "claudecode"], ["agent", "unfreeze", "claudecode"]):
        code, out, err = _cli(capsys, *argv, "--root", root)
        assert (code, err) == (0, "") and "repaired" not in out, argv
    assert {name: (directory / name).stat().st_mtime_ns for name in before} == before
