"""The state lock keeps released descriptors for reuse without ever sharing a lock it should not."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from elydora_config.errors import LockTimeoutError
from elydora_config.lock import StateLock, holder_pid, shared_lock

TRY_LOCK = (
    "import sys; from elydora_config.lock import StateLock; from elydora_config.errors import LockTimeoutError\n"
    "try:\n    StateLock(sys.argv[1], timeout=0.2).acquire()\nexcept LockTimeoutError:\n    print('refused')\n"
    "else:\n    print('taken')\n"
)


def _other_process_gets(state: Path) -> str:
    done = subprocess.run([sys.executable, "-c", TRY_LOCK, str(state)], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_reused_descriptor_still_excludes_other_processes(tmp_path: Path) -> None:
    lock = StateLock(tmp_path, timeout=1)
    for _ in range(3):  # the second and third cycles run on the kept descriptor
        with lock:
            assert _other_process_gets(tmp_path) == "refused"
    assert _other_process_gets(tmp_path) == "taken"


def test_the_holder_pid_is_ours_again_after_another_process_held_the_lock(tmp_path: Path) -> None:
    with StateLock(tmp_path, timeout=1):
        pass
    assert _other_process_gets(tmp_path) == "taken"  # it wrote its own PID
    assert holder_pid(tmp_path / ".lock") != os.getpid()
    with StateLock(tmp_path, timeout=1):
        assert holder_pid(tmp_path / ".lock") == os.getpid()


def test_a_lock_file_made_anew_behind_our_back_is_opened_again(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    with StateLock(state, timeout=1):
        pass
    shutil.rmtree(state)  # the kept descriptor now holds a lock file that no path names
    state.mkdir()
    with StateLock(state, timeout=1):
        assert (state / ".lock").exists()
        assert holder_pid(state / ".lock") == os.getpid()
        assert _other_process_gets(state) == "refused"


def test_two_threads_sharing_one_lock_object_still_exclude_each_other(tmp_path: Path) -> None:
    lock = shared_lock(str(tmp_path), 0.2)
    assert shared_lock(str(tmp_path), 0.2) is lock
    outcome: list[str] = []
    with lock:
        def other() -> None:
            try:
                lock.acquire()
            except LockTimeoutError:
                outcome.append("refused")
            else:
                outcome.append("taken")
                lock.release()

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert outcome == ["refused"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_never_shares_the_parents_kept_descriptor(tmp_path: Path) -> None:
    lock = shared_lock(str(tmp_path), 0.2)
    with lock:
        pass  # its descriptor is kept now
    with lock:  # held through the kept descriptor while the child tries
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its copy of the shared object and of the kept descriptor must not count
            os.close(read)
            try:
                shared_lock(str(tmp_path), 0.2).acquire()
                answer = b"taken"
            except LockTimeoutError:
                answer = b"refused"
            except BaseException:
                answer = b"error"
            os.write(write, answer)
            os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            answer = pipe.read()
        os.waitpid(pid, 0)
    assert answer == b"refused"
