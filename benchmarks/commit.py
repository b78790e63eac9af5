"""Commit cost and lock latency (``python -m benchmarks.commit`` from the project root).

* ``commit k=N``: one :class:`~elydora_config.Transaction` replacing N small files, against N *raw durable
  replaces* of the same files (write a temp file, ``fsync`` it, ``rename`` it over the target, ``fsync`` the
  directory: the least any crash-safe writer does), measured in the same run, call by call in turn.
  Each round times the three call by call in turn (commit, raw replaces, ``write_atomic``) and takes the
  medians; a round's ratio is its commit median over its raw median. Goal for one file: the median of 11
  such per-round ratios <= 1.5x (a single-target commit pays the same two barriers, see
  docs/transactions.md), printed with their range; k=3 and k=10 (the journalled protocol) are shown for
  information (``write_atomic`` rides along).
* ``lock acquire+release``: uncontended :class:`~elydora_config.lock.StateLock` cycle against a raw ``flock``
  cycle (open, lock, unlock, close) on a file of the same directory (goal <= 5x, and <= 200 us); on Windows the
  raw cycle is ``msvcrt.locking`` (LockFile). Where ``portalocker`` is installed, its ``Lock`` cycle on the
  same directory is shown beside ours, for information (README, "Dependencies, and why").
* ``lock reacquire after SIGKILL``: a holder process (a fresh interpreter) is killed (TerminateProcess on
  Windows); time from the kill to our acquisition (goal <= 10 ms).

``--lock`` measures the lock only (the Windows leg's figures, under Wine, are taken that way). The process
exits 1 when a figure misses its goal.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.harness import RESULTS, Figure, dump_json, interleaved_times, median_time, report
from elydora_config import Transaction
from elydora_config.files import write_atomic
from elydora_config.lock import StateLock

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl
try:  # not a dependency: measured beside our lock where it is installed (the Windows leg installs it)
    import portalocker  # type: ignore[import-not-found, unused-ignore]
except ImportError:
    portalocker = None

ROUNDS = 5
ROUNDS_ONE = 11
"""Rounds for one file, whose goal is gated: the median of the per-round ratios, each round interleaved."""
PAYLOAD = b'{\n  "model": "opus",\n  "hooks": {"PreToolUse": [{"command": "elydora hook guard"}]}\n}\n'


def _commit_vs_replace(root: Path, k: int) -> None:
    files = [root / f"k{k}" / f"settings-{i}.json" for i in range(k)]
    files[0].parent.mkdir()
    for path in files:
        path.write_bytes(PAYLOAD)
    state = root / f"state-{k}"
    counter = iter(range(10**9))

    def commit() -> None:
        tag = b"%d" % next(counter)
        with Transaction(state) as tx:
            for path in files:
                tx.write(path, PAYLOAD + tag)

    def replaces() -> None:
        tag = b"%d" % next(counter)
        for path in files:
            raw_durable_replace(path, PAYLOAD + tag)

    def atomic_writes() -> None:
        tag = b"%d" % next(counter)
        for path in files:
            write_atomic(path, PAYLOAD + tag)

    commit_times, replace_times, atomic_times = [], [], []
    rounds = ROUNDS_ONE if k == 1 else ROUNDS
    for _ in range(rounds):  # call by call in turn, so that a burst of disk load hits all three alike
        fns = {"commit": commit, "replace": replaces, "atomic": atomic_writes}
        times = interleaved_times(fns, repeat=30 if k == 1 else 15)  # fsync latency swings: k=1 needs more calls
        commit_times.append(times["commit"])
        replace_times.append(times["replace"])
        atomic_times.append(times["atomic"])
    value, baseline = statistics.median(commit_times), statistics.median(replace_times)
    ratios = sorted(c / r for c, r in zip(commit_times, replace_times, strict=True))
    report(
        Figure(
            f"commit k={k} small files",
            value,
            "s",
            baseline_name=f"{k} x raw durable replace",
            baseline=baseline,
            extra={
                "per_file_ms": f"{value / k * 1e3:.3f}",
                "write_atomic_x": f"{statistics.median(atomic_times) / baseline:.2f}",
            },
        )
    )
    report(
        Figure(
            f"commit k={k}: median of {rounds} per-round ratios to the raw replace",
            statistics.median(ratios),
            "x",
            goal=1.5 if k == 1 else None,
            goal_kind="absolute",
            extra={"per-round range": f"{ratios[0]:.2f}-{ratios[-1]:.2f}"},
        )
    )


def raw_durable_replace(path: Path, data: bytes) -> None:
    """The floor of a crash-safe replace: temp file, fsync, rename, fsync of the directory."""
    tmp = path.with_name(path.name + ".raw-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.rename(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _cycle_time(acquire_release: object, cycles: int = 1000) -> float:
    fn = acquire_release  # a callable doing one acquire+release

    def many() -> None:
        for _ in range(cycles):
            fn()  # type: ignore[operator]

    return median_time(many, repeat=5, warmup=1) / cycles


def _lock_cycle(root: Path) -> None:
    state = root / "lock-state"
    state.mkdir(mode=0o700)
    lock = StateLock(state, timeout=1.0)

    def ours() -> None:
        lock.acquire()
        lock.release()

    path = str(state / ".raw")
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    raw = _raw_lock_cycle(path)
    portalocker = _portalocker_cycle(str(state / ".portalocker"))
    ours_times, raw_times, portalocker_times = [], [], []
    for _ in range(ROUNDS):
        ours_times.append(_cycle_time(ours))
        raw_times.append(_cycle_time(raw))
        if portalocker is not None:
            portalocker_times.append(_cycle_time(portalocker))
    value, baseline = statistics.median(ours_times), statistics.median(raw_times)
    name = "raw LockFile open/lock/unlock/close" if sys.platform == "win32" else "raw flock open/lock/unlock/close"
    report(Figure("lock acquire+release (uncontended)", value, "s", baseline_name=name, baseline=baseline, goal=5.0))
    report(Figure("lock acquire+release, absolute", value, "s", goal=200e-6, goal_kind="absolute"))
    if portalocker is not None:
        report(
            Figure(
                "portalocker.Lock acquire+release (information)",
                statistics.median(portalocker_times),
                "s",
                baseline_name=name,
                baseline=baseline,
            )
        )


def _raw_lock_cycle(path: str) -> Callable[[], None]:
    """Open, lock, unlock, close with the system's own call: ``flock``, or on Windows ``msvcrt.locking``."""
    if sys.platform == "win32":

        def raw_lockfile() -> None:
            fd = os.open(path, os.O_RDWR | os.O_BINARY)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
            os.close(fd)

        return raw_lockfile

    def raw_flock() -> None:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    return raw_flock


def _portalocker_cycle(path: str) -> Callable[[], None] | None:
    if portalocker is None:
        return None
    lock = portalocker.Lock(path, mode="a", timeout=1.0, fail_when_locked=False)

    def cycle() -> None:
        lock.acquire()
        lock.release()

    return cycle


HOLDER = """
import sys, time
sys.path.insert(0, sys.argv[2])
from elydora_config.lock import StateLock
StateLock(sys.argv[1], timeout=5.0).acquire()
sys.stdout.write("ready\\n"); sys.stdout.flush()
time.sleep(60)
"""


def _reacquire(root: Path) -> None:
    state = root / "reacquire-state"
    state.mkdir(mode=0o700)
    project = str(Path(__file__).resolve().parent.parent)
    waits = []
    for _ in range(9):
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(state), project], stdout=subprocess.PIPE, text=True
        )
        assert holder.stdout is not None and holder.stdout.readline() == "ready\n"
        lock = StateLock(state, timeout=5.0)
        holder.kill()  # SIGKILL; TerminateProcess on Windows
        started = time.perf_counter()
        lock.acquire()
        waits.append(time.perf_counter() - started)
        lock.release()
        holder.wait()
        holder.stdout.close()
    report(
        Figure(
            "lock reacquire after SIGKILL of the holder",
            statistics.median(waits),
            "s",
            goal=0.010,
            goal_kind="absolute",
            extra={"max_ms": f"{max(waits) * 1e3:.2f}"},
        )
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="elydora-bench-commit-") as tmp:
        root = Path(tmp)
        for k in () if "--lock" in sys.argv[1:] else (1, 3, 10):
            _commit_vs_replace(root, k)
        _lock_cycle(root)
        _reacquire(root)
    dump_json()
    missed = [fig.name for fig in RESULTS if fig.met is False]
    if missed:
        print(f"{len(missed)} figure(s) missed their goal: {'; '.join(missed)}", flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
