"""Issue 27: ``status`` says healthy only when the guard can run (real files, CLI in process, real launchers).

Launchers not executable, an interpreter replaced by a stub, code planted beside the runtime or in its
``__pycache__``, compiled runtime that differs from what install compiled: each said ``healthy`` before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from elydora_testkit import system_root

from elydora_cli import identity
from elydora_cli.main import main
from elydora_cli.runtime import bytecode

PROVIDER = "claudecode"
EVENT = {"hook_event_name": "PreToolUse", "transcript_path": "/t.jsonl", "tool_name": "Bash", "session_id": "s"}


def cli(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--root", str(root / "home")])
    return code, capsys.readouterr().out


def row(capsys: pytest.CaptureFixture[str], root: Path) -> tuple[int, dict[str, object]]:
    code, out = cli(capsys, root, "status", PROVIDER, "--json")
    found = json.loads(out)["providers"][0]
    assert isinstance(found, dict)
    return code, found


def agent_dir(root: Path) -> Path:
    return root / "home" / ".elydora" / PROVIDER


def install(capsys: pytest.CaptureFixture[str], root: Path, python: str = sys.executable) -> None:
    assert main(["install", PROVIDER, "--python", python, "--root", str(root / "home")]) == 0
    capsys.readouterr()
    assert row(capsys, root)[0] == 0


def frozen_guard_exit(root: Path) -> int:
    """What the guard answers a frozen agent when Claude Code runs the entry (the launcher itself)."""
    (agent_dir(root) / "status.json").write_bytes(identity.status_bytes("frozen", None))
    done = subprocess.run([str(agent_dir(root) / "guard.py")], input=json.dumps(EVENT).encode(),
                          capture_output=True, check=False, timeout=30)
    return done.returncode


def test_a_launcher_that_is_not_executable(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    install(capsys, root)
    guard = agent_dir(root) / "guard.py"
    guard.chmod(0o600)
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == "unhealthy"
    assert found["problems"] == [f"{guard}: is not executable: the agent cannot start it (chmod 700 it, or reinstall)"]


def test_an_interpreter_replaced_by_a_stub(root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The path is the same and executable, but what it runs is not Python: every tool call would pass."""
    python = tmp_path / "py" / "python3"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    install(capsys, root, str(python))
    python.unlink()
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == "unhealthy"
    assert found["interpreter"] == {"path": str(python), "present": False, "identity": "changed"}
    assert any(f"the hook interpreter {python} changed since install and does not run Python" in p
               for p in found["problems"]), found["problems"]  # type: ignore[union-attr]
    assert cli(capsys, root, "verify", PROVIDER)[0] == 1


def test_an_interpreter_that_changed_but_runs_python_is_run_once_and_healthy(
    root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    python = tmp_path / "py" / "python3"
    python.parent.mkdir()
    python.symlink_to(sys.executable)
    install(capsys, root, str(python))
    _, found = row(capsys, root)
    assert found["interpreter"] == {"path": str(python), "present": True, "identity": "as installed"}
    other = tmp_path / "py" / "other"  # another file that is the same Python: a new fingerprint
    other.write_bytes(Path(sys.executable).read_bytes())
    other.chmod(0o755)
    python.unlink()
    python.symlink_to(other)
    code, found = row(capsys, root)
    assert code == 0 and found["interpreter"] == {"path": str(python), "present": True, "identity": "changed"}


@pytest.mark.parametrize(
    "planted",
    [
        "select.py",
        "json/__init__.py",
        "posix.cpython-311-x86_64-linux-gnu.so",
        "__pycache__/_elydora_guard.cpython-311.pyc",
    ],
)
def test_code_planted_beside_the_runtime(root: Path, capsys: pytest.CaptureFixture[str], planted: str) -> None:
    install(capsys, root)
    path = agent_dir(root) / planted
    path.parent.mkdir(exist_ok=True)
    path.write_text("raise SystemExit(0)\n")
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == "unhealthy"
    reported = agent_dir(root) / planted.split("/")[0]
    assert [p for p in found["problems"] if str(reported) in p], found["problems"]  # type: ignore[union-attr]
    assert frozen_guard_exit(root) == 2  # and the planted code does not run in the guard's place


def test_compiled_runtime_that_differs_from_what_install_compiled(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install(capsys, root)
    compiled = next(agent_dir(root).glob("_elydora_guard.*.code"))
    source = (agent_dir(root) / "_elydora_guard.py").read_bytes() + b"\ndef main():\n    return 0\n"
    import marshal

    compiled.write_bytes(marshal.dumps(compile(source, "_elydora_guard.py", "exec")))
    code, found = row(capsys, root)
    assert code == 1 and found["state"] == "unhealthy"
    assert found["problems"] == [
        f"{compiled}: compiled runtime differs from what install compiled: the hooks would run it in place of the "
        "runtime (reinstall)"
    ]
    assert cli(capsys, root, "install", PROVIDER, "--python", sys.executable)[0] == 0
    assert row(capsys, root)[0] == 0 and frozen_guard_exit(root) == 2


def test_missing_compiled_runtime_is_a_note_and_the_guard_still_enforces(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install(capsys, root)
    for compiled in agent_dir(root).glob("*.code"):
        compiled.unlink()
    code, found = row(capsys, root)
    assert code == 0 and found["state"] == "healthy"
    assert frozen_guard_exit(root) == 2


def test_under_system_scope_the_policy_module_is_loaded_by_path(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``_elydora_policy`` (and the modules it imports) cannot be shadowed by a file beside the launchers, and
    status reports such a file."""
    sysroot = root / "home"
    assert system_root.system(sysroot, "install", PROVIDER, "--python", sys.executable) == 0
    runtime = system_root.runtime(sysroot, PROVIDER)
    assert sorted(p.name for p in runtime.glob("*.code")) == sorted(
        f"{m}.{sys.implementation.cache_tag}.code" for m in ("_elydora_audit", "_elydora_guard", "_elydora_policy")
    )
    (runtime / "pwd.py").write_text("raise SystemExit(0)\n")
    os.chmod(runtime / "pwd.py", 0o644)
    capsys.readouterr()
    assert system_root.system(sysroot, "status", PROVIDER, "--json") == 1
    found = json.loads(capsys.readouterr().out)["providers"][0]
    assert any(str(runtime / "pwd.py") in p for p in found["problems"]), found["problems"]
    (runtime / "status.json").write_bytes(identity.status_bytes("frozen", None))
    os.chmod(runtime / "status.json", 0o644)
    done = subprocess.run([sys.executable, "-I", "-S", str(runtime / "guard.py")], input=json.dumps(EVENT).encode(),
                          capture_output=True, check=False, timeout=30)
    assert done.returncode == 2, done.stderr


def test_a_reinstall_keeps_the_compiled_runtime_without_compiling(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing changed since the last install (same interpreter, same sources): nothing is compiled again, and
    nothing is rewritten; a changed compiled file is compiled again."""
    install(capsys, root)
    compiled = sorted(agent_dir(root).glob("*.code"))
    before = {p: p.read_bytes() for p in compiled}

    def refuse(*args: object) -> dict[str, bytes]:
        raise AssertionError("compiled again")

    monkeypatch.setattr(bytecode, "compiled", refuse)
    code, out = cli(capsys, root, "install", PROVIDER, "--python", sys.executable)
    assert code == 0 and "already up to date" in out
    assert {p: p.read_bytes() for p in compiled} == before
    compiled[0].write_bytes(b"stray")
    monkeypatch.undo()
    assert cli(capsys, root, "install", PROVIDER, "--python", sys.executable)[0] == 0
    assert all(bytecode.same_code(before[p], p.read_bytes()) for p in compiled) and row(capsys, root)[0] == 0
