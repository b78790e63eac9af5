"""``elydora install --every`` into a fresh root and ``elydora status``, as wall time and as a multiple of
``python3 -c "import elydora_cli"`` measured in the same run.

Run: ``python -m benchmarks.cli`` from the project root.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Figure, dump_json, median_command_time, report

REPEAT = 9


def _elydora(*args: str) -> list[str]:
    return [sys.executable, "-m", "elydora_cli", *args]


def _install_all_time() -> float:
    samples = []
    for _ in range(REPEAT):
        root = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
        try:
            start = time.perf_counter()
            subprocess.run(
                _elydora("install", "--every", "--root", str(root)),
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            samples.append(time.perf_counter() - start)
        finally:
            shutil.rmtree(root)
    return statistics.median(samples)


def main() -> None:
    baseline = median_command_time([sys.executable, "-c", "import elydora_cli"], repeat=REPEAT)
    install = _install_all_time()
    report(
        Figure(
            "install --every (fresh root)", install, "s", "import elydora_cli", baseline, goal=1.0, goal_kind="absolute"
        )
    )
    root = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
    try:
        subprocess.run(_elydora("install", "--every", "--root", str(root)), check=True, stdout=subprocess.DEVNULL)
        status = median_command_time(_elydora("status", "--root", str(root)), repeat=REPEAT)
    finally:
        shutil.rmtree(root)
    report(Figure("status (all installed)", status, "s", "import elydora_cli", baseline))
    dump_json()


if __name__ == "__main__":
    main()
