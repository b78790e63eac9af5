"""The flusher's wait for the end of a burst (``runtime/settle.py``): it lasts while the spool grows, ends once
the spool is quiet, is bounded, and loads nothing but builtin modules."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

from elydora_testkit.runtime_helpers import PYTHON

import elydora_cli
from elydora_cli.runtime import settle
from elydora_cli.statefiles import SPOOL


def _append_for(spool: Path, seconds: float, every: float) -> threading.Thread:
    def run() -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            with open(spool, "ab") as fh:
                fh.write(b"\n1 {}\n")
            time.sleep(every)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_quiet_spool_ends_the_wait_after_the_quiet_period(tmp_path: Path) -> None:
    (tmp_path / SPOOL).write_bytes(b"\n1 {}\n")
    waited = settle.wait_for_quiet(str(tmp_path), quiet=0.1, limit=20)
    assert 0.1 <= waited < 10


def test_the_wait_lasts_while_the_burst_appends(tmp_path: Path) -> None:
    thread = _append_for(tmp_path / SPOOL, 0.4, 0.02)
    try:
        waited = settle.wait_for_quiet(str(tmp_path), quiet=0.5, limit=20)
    finally:
        thread.join()
    assert waited >= 0.4 + 0.5 - 0.05  # the appends, then a quiet period after the last one


def test_a_steady_stream_does_not_hold_the_flusher_back_beyond_the_limit(tmp_path: Path) -> None:
    thread = _append_for(tmp_path / SPOOL, 3.0, 0.01)
    try:
        waited = settle.wait_for_quiet(str(tmp_path), quiet=1.0, limit=0.3)
    finally:
        thread.join()
    assert 0.3 <= waited < 2.5


def test_a_missing_spool_is_quiet(tmp_path: Path) -> None:
    assert settle.spool_size(str(tmp_path)) == -1
    assert settle.wait_for_quiet(str(tmp_path), quiet=0.05, limit=20) < 10


def test_waiting_imports_only_builtin_modules() -> None:
    root = os.path.dirname(os.path.dirname(elydora_cli.__file__))
    code = (
        f"import sys; sys.path.append({root!r}); before = set(sys.modules)\n"
        "from elydora_cli.runtime.settle import wait_for_quiet\n"
        "print(' '.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run([PYTHON, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [
        "__future__",
        "elydora_cli",
        "elydora_cli.runtime",
        "elydora_cli.runtime.settle",
        "elydora_cli.statefiles",
    ]
