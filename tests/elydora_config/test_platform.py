"""The OS layer (``elydora_config._platform``): one home, the same promises on each system, as each system gives them.

Run on Linux by the unit suite and on Windows (the official CPython under Wine) by the Windows leg of CI.
Wine cannot make symbolic links or junctions (``os.symlink`` creates nothing), so the refusal of reparse points
is shown with the attributes Windows reports for them, substituted for one path's ``lstat``.
"""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from elydora_testkit.platforms import windows_only

from elydora_config import SymlinkRefusedError, Transaction, _platform
from elydora_config._platform import locking
from elydora_config.files import append_private, read_physical, write_atomic
from elydora_config.snapshot import take

PACKAGE = Path(__file__).resolve().parents[2] / "elydora_config"
PLATFORM = PACKAGE / "_platform"

OS_SPECIFIC_MODULES = {"fcntl", "msvcrt", "ctypes", "winreg", "termios", "pwd", "grp", "resource", "_winapi"}
OS_SPECIFIC_CALLS = {
    "geteuid", "getegid", "getuid", "getgid", "getgroups", "chown", "fchown", "lchown", "fchmod", "pread",
    "pwrite", "fork", "register_at_fork", "kill", "killpg", "setsid", "fsync", "fdatasync", "sync", "rename",
    "replace", "link", "symlink", "O_NOFOLLOW", "O_DIRECTORY", "O_CLOEXEC", "O_NONBLOCK", "O_BINARY",
}  # fmt: skip
"""``os`` names whose presence or meaning differs by system (``rename`` replaces on POSIX only, ``kill(pid, 0)``
terminates on Windows, ``fsync`` needs ``F_FULLFSYNC`` on macOS)."""
DIR_FD_KEYWORDS = {"dir_fd", "src_dir_fd", "dst_dir_fd"}


def _os_specific_uses(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.split(".")[0] in OS_SPECIFIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OS_SPECIFIC_MODULES:
            found.append(f"from {node.module} import")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr in OS_SPECIFIC_CALLS:
                found.append(f"os.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and owner.id == "os":
                found += [f"os.{node.func.attr}({k.arg}=)" for k in node.keywords if k.arg in DIR_FD_KEYWORDS]
    return [f"{path.relative_to(root)}:{use}" for use in found]


def test_no_module_outside_the_platform_layer_calls_an_os_specific_function() -> None:
    modules = [p for p in PACKAGE.rglob("*.py") if PLATFORM not in p.parents]
    assert len(modules) > 30
    assert [use for path in modules for use in _os_specific_uses(path)] == []


def test_the_detector_sees_each_kind_of_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import fcntl\nfrom ctypes import c_int\nimport os\nos.geteuid()\nos.stat('x', dir_fd=3)\n")
    uses = sorted(u.split(":", 1)[1] for u in _os_specific_uses(sample, tmp_path))
    assert uses == ["from ctypes import", "import fcntl", "os.geteuid", "os.stat(dir_fd=)"]


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.If):  # a name defined per system (fsync on macOS)
            names |= {inner.name for inner in node.body if isinstance(inner, ast.FunctionDef)}
    return names


def test_both_halves_define_every_name_of_the_layer() -> None:
    for half in ("_posix.py", "_windows.py"):
        missing = set(_platform.__all__) - _top_level_names(PLATFORM / half)
        assert missing == set(), half
    for half in ("_posix_lock.py", "_windows.py"):
        missing = set(locking.__all__) - _top_level_names(PLATFORM / half)
        assert missing == set(), half


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: the layer is the os functions themselves")
def test_on_linux_the_layer_is_the_os_functions_themselves() -> None:
    """Nothing between the library and the system calls on Linux: no wrapper to cost time, no F_FULLFSYNC."""
    import fcntl

    assert _platform.fsync is os.fsync and _platform.fsync_dir is os.fsync
    assert _platform.open_at is os.open and _platform.rename_at is os.rename and _platform.stat_at is os.stat
    assert locking.flock is fcntl.flock and locking.pread is os.pread


def test_crlf_and_ctrl_z_are_kept_byte_for_byte(tmp_path: Path) -> None:
    data = b'{\r\n  "a": 1,\r\n  "b": "\x1a"\r\n}\r\n'
    target = tmp_path / "settings.json"
    with Transaction(tmp_path / "state") as tx:
        tx.write(target, data)
    assert target.read_bytes() == data and read_physical(target, max_bytes=1 << 10) == data
    write_atomic(tmp_path / "other.json", data)
    assert (tmp_path / "other.json").read_bytes() == data


def test_a_path_longer_than_max_path_is_written_and_recovered(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["d" * 50] * 6)
    target = deep / "settings.json"
    assert len(str(target)) > 300
    with Transaction(tmp_path / "state") as tx:
        tx.mkdir(deep)
        tx.write(target, b"{}\n")
        tx.write(tmp_path / "second.json", b"[]\n")  # two targets: the journalled commit
    assert read_physical(target, max_bytes=16) == b"{}\n"


def test_a_replace_waits_for_a_reader_that_holds_the_target_open(tmp_path: Path) -> None:
    """Windows refuses to replace a file another handle holds open; the rename is retried until it is closed."""
    target = tmp_path / "settings.json"
    target.write_bytes(b"old\n")
    reader = os.open(target, os.O_RDONLY)
    closer = threading.Timer(0.2, os.close, [reader])
    closer.start()
    try:
        with Transaction(tmp_path / "state") as tx:
            tx.write(target, b"new\n")
    finally:
        closer.join()
    assert target.read_bytes() == b"new\n"


@windows_only
def test_a_reader_that_never_lets_go_fails_the_commit_and_keeps_the_file(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"old\n")
    reader = os.open(target, os.O_RDONLY)
    try:
        with pytest.raises(PermissionError) as caught, Transaction(tmp_path / "state") as tx:
            tx.write(target, b"new\n")
    finally:
        os.close(reader)
    assert caught.value.filename == str(target) and "open in another program" in str(caught.value)
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir() if ".elydora-tmp-" in p.name] == []


def test_the_snapshot_holds_the_file_id_and_sees_a_replacement(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"one\n")
    before, _ = take(target)
    assert before.inode == os.stat(target).st_ino != 0
    write_atomic(target, b"one\n")  # the same bytes in a new file
    after, _ = take(target)
    assert after.inode != before.inode and "inode" in before.differences(after)


def test_process_liveness_asks_without_harming_the_process(tmp_path: Path) -> None:
    """``os.kill(pid, 0)`` would terminate the process on Windows; the layer asks OpenProcess there."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], stdin=subprocess.PIPE)
    try:
        assert _platform.pid_alive(child.pid) and _platform.pid_alive(os.getpid())
        time.sleep(0.1)
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()
    assert not _platform.pid_alive(child.pid)


def test_append_private_creates_and_appends(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    append_private(log, "one\n")
    append_private(log, b"two\r\n")
    assert log.read_bytes() == b"one\ntwo\r\n"


@windows_only
def test_names_differing_only_in_case_are_one_file_in_a_transaction(tmp_path: Path) -> None:
    (tmp_path / "Settings.json").write_bytes(b"old\n")
    with Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "Settings.json", b"new\n")
        assert tx.read(tmp_path / "SETTINGS.JSON") == b"new\n"
        assert tx.staged_paths == [str(tmp_path / "Settings.json")]
    assert sorted(os.listdir(tmp_path)) == ["Settings.json", "state"]
    assert (tmp_path / "settings.json").read_bytes() == b"new\n"


@windows_only
def test_modes_are_the_read_only_attribute(tmp_path: Path) -> None:
    assert (_platform.kept_mode(0o600), _platform.kept_mode(0o444), _platform.kept_mode(0o755)) == (0o666, 0o444, 0o666)
    target = tmp_path / "tool.cmd"  # stat derives execute bits from the extension: not part of the mode kept
    with Transaction(tmp_path / "state") as tx:
        tx.write(target, b"@echo off\r\n", mode=0o444)
    snap, _ = take(target)
    assert snap.mode == 0o444 and not _platform.may_write(snap.mode, snap.uid, snap.gid)


def _reparse_point(real: os.stat_result, tag: int) -> os.stat_result:
    fields = list(real)
    fields[0] = stat.S_IFDIR | 0o777 if tag == _MOUNT_POINT else stat.S_IFLNK | 0o777
    extra = {"st_file_attributes": stat.FILE_ATTRIBUTE_REPARSE_POINT | real.st_file_attributes, "st_reparse_tag": tag}
    return os.stat_result(fields, extra)  # type: ignore[arg-type]


_MOUNT_POINT = 0xA0000003  # a junction
_SYMLINK = 0xA000000C
_CLOUD = 0x9000001A  # a OneDrive placeholder: a reparse point, but not a link


@windows_only
@pytest.mark.parametrize("tag", [_MOUNT_POINT, _SYMLINK])
def test_junctions_and_symbolic_links_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tag: int) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "settings.json").write_bytes(b"{}")
    real_lstat = os.lstat
    linked = {str(tmp_path / "conf"), str(tmp_path / "conf" / "settings.json")}

    def lstat(path: str, *args: object, **kwargs: object) -> os.stat_result:
        info = real_lstat(path)
        return _reparse_point(info, tag) if os.fspath(path) in linked else info

    monkeypatch.setattr(os, "lstat", lstat)
    with pytest.raises(SymlinkRefusedError, match="conf"):
        read_physical(tmp_path / "conf" / "settings.json", max_bytes=16)
    assert read_physical(tmp_path / "conf" / "settings.json", max_bytes=16, allow_links=True) == b"{}"


@windows_only
def test_a_reparse_point_that_is_not_a_link_is_read() -> None:
    real = os.stat(sys.executable)
    assert _platform.is_link(_reparse_point(real, _SYMLINK)) and _platform.is_link(_reparse_point(real, _MOUNT_POINT))
    cloud = os.stat_result(
        list(real), {"st_file_attributes": stat.FILE_ATTRIBUTE_REPARSE_POINT, "st_reparse_tag": _CLOUD}
    )  # type: ignore[arg-type]
    assert not _platform.is_link(cloud)


def _dacl(path: Path) -> str:
    """The DACL of ``path`` in SDDL form, as Windows (here: Wine) reports it."""
    import ctypes
    from ctypes import wintypes

    advapi = ctypes.WinDLL("advapi32", use_last_error=True)  # type: ignore[attr-defined]
    descriptor, text, size = ctypes.c_void_p(), ctypes.c_wchar_p(), wintypes.ULONG()
    dacl = 4  # DACL_SECURITY_INFORMATION
    assert advapi.GetNamedSecurityInfoW(str(path), 1, dacl, None, None, None, None, ctypes.byref(descriptor)) == 0
    assert advapi.ConvertSecurityDescriptorToStringSecurityDescriptorW(
        descriptor, 1, dacl, ctypes.byref(text), ctypes.byref(size)
    )
    return str(text.value)


@windows_only
def test_a_state_directory_admits_its_owner_system_and_administrators_only(tmp_path: Path) -> None:
    """Python 3.13 asks for ``D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FA;;;OW)``; Wine keeps the entries of
    SYSTEM and the owner (no Administrators group there, no protected flag). Either way nobody else is
    admitted, where the profile folder the state directory sits in admits Everyone to read (under Wine).
    Wine synthesises a file's DACL instead of inheriting it, so the files' inheritance is not shown here."""
    with Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "a.json", b"1")
        tx.write(tmp_path / "b.json", b"2")
    for folder in (tmp_path / "state", tmp_path / "state" / "transactions"):
        dacl = _dacl(folder)
        trustees = {ace.rsplit(";", 1)[-1] for ace in dacl.split("(", 1)[1].rstrip(")").split(")(")}
        owner = _owner_sid(folder)
        assert owner in trustees and trustees <= {"SY", "BA", "OW", owner}, dacl


def _owner_sid(path: Path) -> str:
    import ctypes

    advapi = ctypes.WinDLL("advapi32", use_last_error=True)  # type: ignore[attr-defined]
    owner, descriptor, text = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_wchar_p()
    owner_info = 1  # OWNER_SECURITY_INFORMATION
    found = advapi.GetNamedSecurityInfoW(
        str(path), 1, owner_info, ctypes.byref(owner), None, None, None, ctypes.byref(descriptor)
    )
    assert found == 0
    assert advapi.ConvertSidToStringSidW(owner, ctypes.byref(text))
    return str(text.value)


@windows_only
def test_no_directory_descriptor_outlives_a_commit(tmp_path: Path) -> None:
    from elydora_config._platform import _windows  # type: ignore[attr-defined]

    before = dict(_windows._dirs)
    with Transaction(tmp_path / "state") as tx:
        tx.write(tmp_path / "a.json", b"1")
        tx.write(tmp_path / "b.json", b"2")
    read_physical(tmp_path / "a.json", max_bytes=4)
    assert _windows._dirs == before


def test_the_released_lock_leaves_the_state_directory_removable(tmp_path: Path) -> None:
    """On Windows an open file pins its folder: a released lock's descriptor is closed there, not kept."""
    state = tmp_path / "state"
    with Transaction(state) as tx:
        tx.write(tmp_path / "a.json", b"1")
    for path in sorted(state.rglob("*"), key=lambda p: -len(p.parts)):
        path.rmdir() if path.is_dir() else path.unlink()
    state.rmdir()
    assert not state.exists()


def test_flock_held_says_whether_a_lock_is_held_where_the_system_tells(tmp_path: Path) -> None:
    """Linux answers from ``/proc/locks`` without taking the lock; macOS and Windows do not say (``None``)."""
    path = tmp_path / "flush.lock"
    path.write_bytes(b"")
    info = os.stat(path)
    if not sys.platform.startswith("linux"):
        assert _platform.flock_held(info) is None
        return
    assert _platform.flock_held(info) is False
    fd = os.open(path, os.O_RDWR)
    try:
        locking.flock(fd, locking.LOCK_EX_NB)
        assert _platform.flock_held(info) is True
        assert _platform.flock_held(os.stat(tmp_path)) is False  # another file: not that lock
    finally:
        os.close(fd)
    assert _platform.flock_held(info) is False
