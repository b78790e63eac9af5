"""Audit bursts: N parallel audit calls (8 and 32), CPU per call against the interpreter floor.

Run from the project root: ``python -m benchmarks.audit_burst``. One round = N ``<python> -I -S -c pass``
started at once (the floor), then N audit hooks started at once on one local agent, waiting until every
event is in the ledger and every flusher has exited. Cost = CPU time (user + system) of every process of the
round, the detached flushers included (this process is their child subreaper, so it reaps and counts them),
divided by N. Rounds alternate floor and burst; figures are medians. Goal (issue 19): a burst costs at most
1.5x the floor per call. Exit status 1 when a goal is missed.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Figure, dump_json, line_count, lock_is_free, report
from benchmarks.hooks import _agent
from elydora_cli import identity
from elydora_cli.runtime import runtime_argv

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SIZES = (8, 32)
GOAL = 1.5
_PR_SET_CHILD_SUBREAPER = 36
# Claude Code's envelope (the hook records only what carries its host keys; anything else is another host's)
EVENT = json.dumps(
    {"hook_event_name": "PostToolUse", "session_id": "s", "transcript_path": "/t.jsonl", "tool_name": "Bash"}
).encode()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_all() -> None:
    """Wait for every descendant re-parented to us (the detached flushers)."""
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def _run_at_once(argv: list[str], data: bytes, count: int) -> None:
    """Start ``count`` processes at once, each with ``data`` as its whole stdin (a file: the event is there and
    closed from the start, as an agent hands it over; feeding pipes one by one would let the last hooks of a
    large burst hit their stdin deadline on a loaded machine)."""
    with tempfile.TemporaryDirectory() as tmp:
        event = Path(tmp) / "event.json"
        event.write_bytes(data)
        procs = []
        for _ in range(count):
            with open(event, "rb") as stdin:  # one open file (and offset) per process
                procs.append(subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL))
        for proc in procs:
            proc.wait()


def _floor_round(count: int) -> float:
    before = _children_cpu()
    _run_at_once([sys.executable, "-I", "-S", "-c", "pass"], b"", count)
    _reap_all()
    return (_children_cpu() - before) / count


def _burst_round(directory: Path, count: int, expected: int) -> float:
    before = _children_cpu()
    event = EVENT
    _run_at_once(runtime_argv(sys.executable, directory / "hook.py"), event, count)
    deadline = time.monotonic() + 60
    while line_count(directory / identity.LEDGER) < expected or not lock_is_free(directory / identity.FLUSH_LOCK):
        if time.monotonic() > deadline:
            raise SystemExit(f"the burst of {count} was not recorded within 60 s")
        time.sleep(0.02)
    _reap_all()
    return (_children_cpu() - before) / count


def main() -> int:
    if ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("cannot become a child subreaper (Linux only)")
    missed = False
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            directory = _agent(Path(tmp), f"burst-{size}", None)
            floors, bursts, ratios = [], [], []
            recorded = 0
            for _ in range(ROUNDS + 1):  # the first round warms caches and bytecode; it is not counted
                floor = _floor_round(size)
                recorded += size
                burst = _burst_round(directory, size, recorded)
                floors.append(floor)
                bursts.append(burst)
                ratios.append(burst / floor)
            fig = Figure(
                f"audit burst of {size} (CPU per call)",
                statistics.median(bursts[1:]),
                "s",
                "python -I -S -c pass (CPU per call, same burst size)",
                statistics.median(floors[1:]),
                GOAL,
                extra={"median ratio per round": round(statistics.median(ratios[1:]), 2)},
            )
            report(fig)
            missed |= fig.met is False
    dump_json()
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
