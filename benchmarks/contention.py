"""Two ``elydora`` runs at once on different agents of one home: how many end in a conflict (goal: none).

Run from the project root: ``python -m benchmarks.contention``. One round starts two processes at the same
moment, ``elydora install A`` and ``elydora install B`` (even rounds) or ``uninstall`` (odd rounds), on one
settings root and state root, and waits for both. Two pairs: Claude Code and Gemini CLI, which share no file,
and Kiro CLI and Kiro IDE, each of which reads the other's hook file (``~/.kiro/hooks/``): the run that reads a
file the other one rewrote starts over from its reads (``elydora_cli/installer/rewrites.py``).

Figures, per pair: the runs that ended in exit 3 (a conflict; goal 0) and any other failure (goal 0), with the
first message of each kind; and the median wall time of a round. ``BENCH_ROUNDS`` (default 64) sets the rounds
per pair.
"""

from __future__ import annotations

import collections
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.harness import Figure, finish, report

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "64"))
PAIRS = (("claudecode", "gemini"), ("kirocli", "kiroide"))
CONFLICT = 3


def _round(root: str, verb: str, pair: tuple[str, ...]) -> list[tuple[int, str]]:
    argv = [sys.executable, "-m", "elydora_cli", verb]
    procs = [
        subprocess.Popen([*argv, agent, "--root", root, "-q"], stderr=subprocess.PIPE, text=True) for agent in pair
    ]
    return [(proc.wait(), proc.stderr.read() if proc.stderr else "") for proc in procs]


def _pair(pair: tuple[str, ...]) -> None:
    name = "+".join(pair)
    codes: collections.Counter[int] = collections.Counter()
    first: dict[int, str] = {}
    walls = []
    with tempfile.TemporaryDirectory() as root:
        for number in range(ROUNDS):
            started = time.perf_counter()
            for code, err in _round(root, "install" if number % 2 == 0 else "uninstall", pair):
                codes[code] += 1
                if code:
                    first.setdefault(code, err.strip().replace(root, "<root>"))
            walls.append(time.perf_counter() - started)
    runs = 2 * ROUNDS
    conflicts, others = codes[CONFLICT], runs - codes[0] - codes[CONFLICT]
    report(Figure(f"{name}: runs ending in a conflict (exit 3) of {runs}", conflicts, "runs", goal=0,
                  goal_kind="absolute"))
    report(Figure(f"{name}: runs failing otherwise of {runs}", others, "runs", goal=0, goal_kind="absolute"))
    report(Figure(f"{name}: wall time of a round (median)", statistics.median(walls), "s"))
    for code, message in sorted(first.items()):
        print(f"  first exit {code}: {message}")


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{ROUNDS} rounds per pair, two processes per round; load average {load:.1f}", flush=True)
    for pair in PAIRS:
        _pair(pair)
    finish()


if __name__ == "__main__":
    main()
