"""``elydora hooks capabilities`` and ``elydora hook --contract neutral-v1`` against a bare interpreter start.

Run from the project root: ``python -m benchmarks.neutral``. Every command runs round-robin with the
baseline ``<python> -I -S -c pass`` (same interpreter, same run). The ``elydora`` entry point imports only
the named command's module and configures logging lazily; the start-up is still broken down: ``elydora
--version`` (the parser with every command module), ``python -c pass`` with ``site`` (the floor of any console
script), and the median ``-X importtime`` cumulative cost of each top-level import of one ``elydora hook`` run.
No goal is set for the timings (goals.md has none); they are printed as ratios to the baseline. Only the hook
command records events (``hooks capabilities`` and the others record nothing), so the ledger must end up with one
entry per hook run (warm-ups, samples and the import runs): that count has a goal, and so has the run's own
wall time (15 s); the run exits 1 when either is missed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.harness import (
    Figure,
    await_count,
    compile_bytecode,
    console_script,
    finish,
    interleaved_command_times,
    line_count,
    print_imports,
    report,
    top_level_imports,
)
from elydora_cli.health import flusher_alive

REPEAT = int(os.environ.get("BENCH_REPEAT", "7"))
IMPORT_RUNS = int(os.environ.get("BENCH_IMPORT_RUNS", "5"))
WARMUP = 1  # the warm-up rounds of interleaved_command_times
REQUEST = b'{"provider": "codex", "hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "bench"}'


def _flusher_idle(directory: Path) -> bool:
    return not flusher_alive(str(directory))


def _ledger_lines(directory: Path) -> int:
    return line_count(directory / "ledger.jsonl")


def main() -> None:
    started = time.perf_counter()
    compile_bytecode()
    elydora = console_script("elydora")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(
            [*elydora, "agent", "create", "--provider", "codex", "--state-root", str(root)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        hook = [*elydora, "hook", "--contract", "neutral-v1", "--state-root", str(root)]
        baseline = "python -I -S -c pass"
        commands: dict[str, tuple[Sequence[str], bytes]] = {
            baseline: ([sys.executable, "-I", "-S", "-c", "pass"], b""),
            "hooks capabilities": ([*elydora, "hooks", "capabilities"], b""),
            "hook --contract neutral-v1 (allow, event spooled)": (hook, REQUEST),
            "elydora --version (parser: every command module)": ([*elydora, "--version"], b""),
            "python -c pass (with site)": ([sys.executable, "-c", "pass"], b""),
        }
        times = interleaved_command_times(commands, repeat=REPEAT, warmup=WARMUP)
        for name, seconds in times.items():
            if name != baseline:
                report(Figure(name, seconds, "s", baseline, times[baseline]))
        print(f"top-level imports of one `elydora hook` run (median of {IMPORT_RUNS}, cumulative):", flush=True)
        entry = elydora[1:] if elydora[0] == sys.executable else elydora
        imports = top_level_imports([*entry, *hook[len(elydora) :]], REQUEST, runs=IMPORT_RUNS)
        print_imports(imports)
        directory = root / ".elydora" / "codex"
        runs = WARMUP + REPEAT + IMPORT_RUNS  # every run of the one recording command: warm-ups, samples, imports
        recorded = await_count(lambda: _ledger_lines(directory), runs, lambda: _flusher_idle(directory))
        report(Figure("neutral events recorded in the ledger", recorded, "entries", goal=runs, goal_kind="minimum"))
    report(
        Figure("benchmark run, start to finish", time.perf_counter() - started, "s", goal=15.0, goal_kind="absolute")
    )
    finish()


if __name__ == "__main__":
    main()
