"""Crash harness (strace variant): SIGKILL the committing process on entry to each mutating system call.

Unlike the ``_sysio`` variant this sees every system call, including those of ``filelock`` and of the
library's own ``os`` calls outside ``_sysio``. A child interpreter runs the 3-file commit; it first writes a
marker to ``/dev/null`` so the enumeration run can tell the commit's calls from the interpreter's start-up.
``strace`` counts invocations per system call, so each crash point is "the k-th ``<syscall>`` of the
process", injected with ``-e inject=<syscall>:signal=KILL:when=k`` (the kernel never executes the call).

Mutating calls: every call in :data:`MUTATING` after the marker, ``openat`` only with ``O_CREAT``.
Skipped, with the reason, when ``strace`` is missing or ptrace is not permitted.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from elydora_testkit.txn_harness import Scenario
from locations import PROJECT_ROOT

from elydora_config import pending, recover

STRACE = shutil.which("strace")
MUTATING = (
    "openat,open,creat,write,pwrite64,writev,fsync,fdatasync,fchmod,fchmodat,chmod,rename,renameat,renameat2,"
    "unlink,unlinkat,link,linkat,mkdir,mkdirat,rmdir,ftruncate,truncate,flock,fallocate,symlink,symlinkat"
)
MARKER = b"ELYDORA-COMMIT-BEGINS"
# The child is a fresh interpreter: it gets the project and the tests folder (home of elydora_testkit) on its path.
CHILD = f"""
import os, sys
sys.path[:0] = [{str(PROJECT_ROOT)!r}, {str(PROJECT_ROOT / "tests")!r}]
from pathlib import Path
from elydora_testkit.txn_harness import Scenario
mode = sys.argv[2]
scn = Scenario(Path(sys.argv[1]), mode == "nested", single=mode[len("single-"):] if mode.startswith("single-") else "")
fd = os.open("/dev/null", os.O_WRONLY)
os.write(fd, {MARKER!r})
scn.run()
"""
_LINE = re.compile(r"^(\w+)\((.*)")


def _ptrace_problem() -> str | None:
    if STRACE is None:
        return "strace is not installed (Debian package 'strace')"
    probe = subprocess.run([STRACE, "-o", os.devnull, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"ptrace is not permitted here: {probe.stderr.strip()[:200]}"
    return None


pytestmark = pytest.mark.skipif(_ptrace_problem() is not None, reason=str(_ptrace_problem()))


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")


def _scenario(root: Path, mode: str) -> Scenario:
    single = mode[len("single-") :] if mode.startswith("single-") else ""
    return Scenario(root, mode == "nested", single=single)


def _child(root: Path, mode: str, strace_args: list[str]) -> int:
    argv = [STRACE or "strace", "-o", os.devnull, *strace_args]
    argv += [sys.executable, "-c", CHILD, str(root), mode]
    return subprocess.run(argv, env=_env(), capture_output=True).returncode


def _enumerate(tmp_path: Path, mode: str, tag: str) -> list[tuple[str, int, str]]:
    """(syscall, per-syscall invocation number, trace line) of each mutating call after the marker."""
    scn = _scenario(tmp_path / f"enum-{tag}", mode).build()
    trace = tmp_path / f"trace-{tag}.txt"
    argv = [STRACE or "strace", "-o", str(trace), "-e", f"trace={MUTATING}", "-e", "signal=none", "-s", "64"]
    argv += [sys.executable, "-c", CHILD, str(scn.root), mode]
    done = subprocess.run(argv, env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert scn.outcome() == "new"
    seen: Counter[str] = Counter()
    points: list[tuple[str, int, str]] = []
    started = False
    for line in trace.read_text().splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        name = match.group(1)
        seen[name] += 1
        if MARKER.decode() in line:
            started = True
            continue
        if started and (name not in ("openat", "open") or "O_CREAT" in line):
            points.append((name, seen[name], line[:110]))
    assert started, "the marker never showed up in the trace"
    return points


MODES = {  # the scenario, how many mutating calls at least, and which system calls among them
    "flat": (25, {"renameat", "linkat", "fsync", "flock"}),
    "nested": (25, {"renameat", "linkat", "fsync", "flock"}),
    "single-replaced": (10, {"renameat2", "fsync", "flock", "unlinkat"}),  # no journal: no renameat, no linkat
}


@pytest.mark.parametrize("mode", list(MODES))
def test_strace_kill_before_every_mutating_syscall(tmp_path: Path, mode: str) -> None:
    # Warm-up run so that start-up is identical from here on, then check that enumeration is reproducible.
    _enumerate(tmp_path, mode, "warm")
    points = _enumerate(tmp_path, mode, "a")
    assert [(n, k) for n, k, _ in points] == [(n, k) for n, k, _ in _enumerate(tmp_path, mode, "b")]
    kinds = Counter(name for name, _, _ in points)
    least, needed = MODES[mode]
    assert len(points) >= least and needed <= set(kinds), kinds
    outcomes: Counter[str] = Counter()
    for index, (name, nth, line) in enumerate(points):
        scn = _scenario(tmp_path / f"p{index}", mode).build()
        code = _child(scn.root, mode, ["-e", f"trace={name}", "-e", f"inject={name}:signal=KILL:when={nth}"])
        assert code in (-9, 128 + 9), f"child not killed at {name} #{nth} ({line}): exit {code}"
        recover(scn.state)
        outcome = scn.outcome()
        where = f"killed at {name} #{nth}: {line}"
        assert outcome in ("old", "new"), f"{where}: {outcome}"
        assert scn.leftovers(outcome) == [], where
        assert pending(scn.state) == [], where
        outcomes[outcome] += 1
    print(f"\ncrash points (strace, {mode}): {len(points)} {dict(kinds)} -> {dict(outcomes)}")
    assert sum(outcomes.values()) == len(points)
    assert outcomes["old"] > 0 and outcomes["new"] > 0
