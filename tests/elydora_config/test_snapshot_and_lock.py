"""Snapshots detect every kind of change; the lock is persistent and names its holder."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from elydora_testkit.platforms import NO_MODES, posix_only

from elydora_config import _platform
from elydora_config.errors import ConcurrentModificationError, LockTimeoutError
from elydora_config.lock import StateLock, holder_pid
from elydora_config.snapshot import take, verify


def test_unchanged_file_verifies(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    snap, data = take(target)
    assert data == b"abc" and snap.exists and len(snap.sha256) == 64
    verify(snap)


def test_absent_file_snapshot(tmp_path):
    snap, data = take(tmp_path / "none")
    assert data is None and not snap.exists
    verify(snap)
    (tmp_path / "none").write_text("now here")
    with pytest.raises(ConcurrentModificationError, match="existence"):
        verify(snap)


def test_same_size_edit_with_restored_times_detected(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    snap, _ = take(target)
    info = target.stat()
    with open(target, "r+b") as fh:
        fh.write(b"xyz")
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    with pytest.raises(ConcurrentModificationError) as err:
        verify(snap)
    assert str(target) in str(err.value)


def test_replacement_with_identical_content_detected(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    snap, _ = take(target)
    (tmp_path / "g").write_bytes(b"abc")
    os.replace(tmp_path / "g", target)
    with pytest.raises(ConcurrentModificationError, match=r"inode|ctime"):
        verify(snap)


@posix_only(NO_MODES)
def test_mode_change_detected(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    snap, _ = take(target)
    target.chmod(0o640)
    with pytest.raises(ConcurrentModificationError, match=r"mode|ctime"):
        verify(snap)


def test_lock_file_persists_and_records_holder(tmp_path):
    with StateLock(tmp_path, timeout=1):
        assert holder_pid(tmp_path / ".lock") == os.getpid()
    assert (tmp_path / ".lock").exists()
    mode = _platform.file_mode((tmp_path / ".lock").stat().st_mode)
    assert oct(mode) == oct(_platform.kept_mode(0o600))  # 0o600; on Windows: not read-only


def test_lock_timeout_names_holder_and_killed_holder_releases(tmp_path):
    code = (
        "import sys, time; from elydora_config.lock import StateLock;"
        f"lock = StateLock({str(tmp_path)!r}, timeout=5); lock.acquire(); print('held', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == b"held"
        with pytest.raises(LockTimeoutError) as info:
            StateLock(tmp_path, timeout=0.2).acquire()
        assert info.value.holder_pid == child.pid
        assert f"process {child.pid}" in str(info.value)
    finally:
        child.kill()
        child.wait()
    started = time.monotonic()
    with StateLock(tmp_path, timeout=30):
        pass
    assert time.monotonic() - started < 10.0  # taken at once, not after waiting out the timeout


def test_negative_timeout_refused(tmp_path):
    with pytest.raises(ValueError):
        StateLock(tmp_path, timeout=-1)
