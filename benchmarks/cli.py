"""``elydora install --every`` into a fresh root, and ``elydora status`` on a home with every agent installed
against the interpreter floor ``<python> -I -S -c pass`` (the real interpreter, measured in the same run,
round-robin). Goals: install <= 1 s; status <= 8x the floor (read-only commands import only what they use).
``python -c pass`` with ``site`` (the floor of any console script) and the costliest top-level imports of one
``elydora status`` run are printed as well, to show where the time goes.

Run: ``python -m benchmarks.cli`` from the project root.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import (
    Figure,
    compile_bytecode,
    console_script,
    finish,
    interleaved_command_times,
    interpreter_floor,
    print_imports,
    report,
    top_level_imports,
)

REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))
INSTALL_REPEAT = 5
STATUS_GOAL = 8.0


def _install_all(elydora: list[str], root: Path) -> None:
    subprocess.run(
        [*elydora, "install", "--every", "--root", str(root)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _install_all_time(elydora: list[str]) -> float:
    samples = []
    for _ in range(INSTALL_REPEAT):
        root = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
        try:
            start = time.perf_counter()
            _install_all(elydora, root)
            samples.append(time.perf_counter() - start)
        finally:
            shutil.rmtree(root)
    return statistics.median(samples)


def _installed(root: Path) -> list[Path]:
    """The agents ``install --every`` left under ``root`` (one manifest each)."""
    from elydora_cli.installer.manifest import MANIFEST_NAME

    return sorted((root / ".elydora").glob(f"*/{MANIFEST_NAME}"))


def main() -> None:
    compile_bytecode()
    elydora = console_script("elydora")
    install = _install_all_time(elydora)
    report(Figure("install --every (fresh root)", install, "s", goal=1.0, goal_kind="absolute"))
    root = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
    try:
        _install_all(elydora, root)
        status = [*elydora, "status", "--root", str(root)]
        label = f"status ({len(_installed(root))} agents installed)"
        floor = "python -I -S -c pass"
        times = interleaved_command_times(
            {
                floor: (interpreter_floor(), b""),
                label: (status, b""),
                "python -c pass (with site)": ([sys.executable, "-c", "pass"], b""),
            },
            repeat=REPEAT,
        )
        report(
            Figure(
                label,
                times[label],
                "s",
                floor,
                times[floor],
                STATUS_GOAL,
            )
        )
        report(Figure("python -c pass (with site)", times["python -c pass (with site)"], "s", floor, times[floor]))
        entry = elydora[1:] if elydora[0] == sys.executable else elydora
        print("top-level imports of one `elydora status` run (median of 5, cumulative):", flush=True)
        print_imports(top_level_imports([*entry, *status[len(elydora) :]]))
    finally:
        shutil.rmtree(root)
    finish()


if __name__ == "__main__":
    main()
