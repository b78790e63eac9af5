"""The generated hooks' copy of the OS layer (``templates/oslayer.py``) is pinned to the library's
(``elydora_config._platform``) and to the CLI's runtime: the same lock byte, link test, retry delays, process
flags and file names. On POSIX its names are ``posix``'s own calls; the Windows half is exercised by the
Windows leg (the runtime tests run there under Wine) and, for links, with the attributes Windows reports."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.platforms import WINDOWS, windows_only

from elydora_cli import spoollock, statefiles
from elydora_cli.runtime import flushlock
from elydora_cli.runtime.templates import oslayer
from elydora_config import _platform

PLATFORM = Path(_platform.__file__).parent


def _constants(path: Path) -> dict[str, Any]:
    """Every ``NAME = <literal>`` of a module, inside its ``if`` blocks too (the per-system halves)."""
    found: dict[str, Any] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and value is not None and target.id not in found:
            try:  # literals, and the few expressions of them the modules write (1 << 30, flag | flag, frozenset)
                found[target.id] = eval(compile(ast.Expression(value), str(path), "eval"), {"frozenset": frozenset})
            except (NameError, AttributeError, TypeError):
                continue  # computed from the system's modules: not a pinned literal
    return found


def test_the_copies_are_the_librarys_and_the_runtimes() -> None:
    ours, windows = _constants(Path(oslayer.__file__)), _constants(PLATFORM / "_windows.py")
    assert ours["LOCK_OFFSET"] == windows["_LOCK_OFFSET"] == 1 << 30  # the flusher locks the same byte
    assert ours["OPEN_RETRIES"] == windows["_RETRY_DELAYS"][: len(ours["OPEN_RETRIES"])]
    assert ours["_NAME_SURROGATE"] == windows["_NAME_SURROGATE"]
    assert set(ours["_HELD_OPEN"]) == set(windows["_HELD_OPEN"])
    assert (ours["_DETACHED"], ours["_BELOW_NORMAL"], ours["_BREAKAWAY"]) == (
        windows["_DETACHED"],
        windows["_BELOW_NORMAL"],
        windows["_BREAKAWAY"],
    )
    assert ours["NOFOLLOW"] == windows["O_NOFOLLOW"]
    assert oslayer.SPOOL_LOCK == statefiles.SPOOL_LOCK and oslayer.START_RECORD == flushlock.START_RECORD
    assert oslayer.HANDS_OVER_LOCKS is not spoollock.SEPARATE_LOCK  # both say "Windows" in their own terms


@pytest.mark.skipif(WINDOWS, reason="the POSIX half")
def test_on_posix_the_names_are_posixs_own() -> None:
    import posix

    assert oslayer.system is posix and oslayer.open_file is posix.open and oslayer.getenv == posix.environ.get
    assert (oslayer.NOFOLLOW, oslayer.NONBLOCK, oslayer.CLOEXEC) == (os.O_NOFOLLOW, os.O_NONBLOCK, os.O_CLOEXEC)
    assert oslayer.OTHERS == 0o077 and oslayer.SEP == "/" and oslayer.user_id() == os.getuid()
    assert oslayer.append_lock("/nonexistent") is None and oslayer.flusher_starting(-1) is False


def test_the_lock_byte_keeps_a_second_process_out(tmp_path: Path) -> None:
    lock = tmp_path / "flush.lock"
    fd = oslayer.open_file(str(lock), os.O_RDWR | os.O_CREAT | oslayer.NOFOLLOW, 0o600)
    try:
        assert oslayer.try_lock(fd)
        code = (
            "import os, sys; from elydora_config._platform import locking; fd = os.open(sys.argv[1], os.O_RDWR);"
            "locking.flock(fd, locking.LOCK_EX_NB)"
        )
        held = subprocess.run([sys.executable, "-c", code, str(lock)], capture_output=True, text=True, check=False)
        assert held.returncode != 0 and "BlockingIOError" in held.stderr  # the library sees the hook's lock
    finally:
        os.close(fd)
    free = subprocess.run([sys.executable, "-c", code, str(lock)], capture_output=True, check=False)
    assert free.returncode == 0


@windows_only
def test_windows_refuses_a_junction_before_and_after_the_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "status.json"
    target.write_bytes(b"{}")
    real_lstat = os.lstat
    junction = os.stat_result((stat.S_IFDIR | 0o777, *real_lstat(target)[1:]))  # what Windows reports for one

    class Reparse:  # lstat's result with the reparse attributes of a junction (Wine cannot make one)
        def __getattr__(self, name: str) -> Any:
            return getattr(junction, name)

        st_file_attributes = stat.FILE_ATTRIBUTE_REPARSE_POINT
        st_reparse_tag = 0xA0000003  # IO_REPARSE_TAG_MOUNT_POINT: a name surrogate

    monkeypatch.setattr(oslayer.system, "lstat", lambda path: Reparse() if path == str(target) else real_lstat(path))
    with pytest.raises(OSError, match="is a link"):
        oslayer.open_file(str(target), os.O_RDONLY | oslayer.NOFOLLOW)
    monkeypatch.undo()
    fd = oslayer.open_file(str(target), os.O_RDONLY | oslayer.NOFOLLOW)
    try:
        assert os.read(fd, 10) == b"{}" and oslayer.OTHERS == 0
    finally:
        os.close(fd)


@windows_only
def test_windows_notes_a_starting_flusher_for_a_while(tmp_path: Path) -> None:
    fd = oslayer.open_file(str(tmp_path / "flush.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert not oslayer.flusher_starting(fd)
        oslayer.note_flusher_start(fd)
        assert oslayer.flusher_starting(fd)
        os.lseek(fd, 0, 0)
        os.write(fd, b"%-20d" % int((__import__("time").monotonic() - oslayer.FLUSHER_GRACE - 1) * 1000))
        assert not oslayer.flusher_starting(fd)  # that flusher never took the lock: another may start
    finally:
        os.close(fd)


def test_every_generated_script_holds_the_layer_once(tmp_path: Path) -> None:
    from elydora_cli.runtime.generate import generate, supervisor_launcher

    body = Path(oslayer.__file__).read_text(encoding="utf-8").partition("from __future__ import annotations\n")[2]
    body = body.strip("\n")
    directory = tmp_path / ".elydora" / "claudecode"
    scripts = [data.decode() for name, (data, _mode) in generate("claudecode", directory, sys.executable).items()]
    scripts.append(supervisor_launcher("claudecode", directory, sys.executable, [sys.executable, "-V"], {}).decode())
    holding = [script for script in scripts if "def open_file(" in script]
    assert len(holding) == 3  # the guard's and the audit hook's modules, the supervisor launcher
    for script in holding:
        assert script.count(body) == 1 and "from .oslayer" not in script and "  # @inline" not in script
        assert script.index(body) < script.index("def read_stdin(")  # hookinput's code uses its names
