"""``elydora hooks capabilities`` and ``elydora hook --contract neutral-v1`` against a bare interpreter start.

Run from the project root: ``python -m benchmarks.neutral``. Every command runs round-robin with the
baseline ``<python> -I -S -c pass`` (same interpreter, same run). The ``elydora`` entry point imports only
the named command's module and configures logging lazily; the start-up is still broken down: the parser with
every command (``build_parser()``), the logging set-up alone, ``elydora --version``, ``python -c pass`` with
``site`` (the floor of any console script), and the median ``-X importtime`` cumulative cost of each
top-level import of one ``elydora hook`` run.
No goal is set for these figures; they are printed as ratios to the baseline.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.harness import Figure, dump_json, interleaved_command_times, line_count, lock_is_free, report

REPEAT = int(os.environ.get("BENCH_REPEAT", "21"))
IMPORT_RUNS = int(os.environ.get("BENCH_IMPORT_RUNS", "7"))
REQUEST = b'{"provider": "codex", "hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "bench"}'



def _elydora() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m elydora_cli``."""
    script = Path(sys.executable).with_name("elydora")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "elydora_cli"]


def _top_level_imports(argv: list[str], stdin: bytes) -> dict[str, float]:
    """Median cumulative import time (ms) of each top-level import of ``argv`` over a few runs."""
    samples: dict[str, list[float]] = {}
    for _ in range(IMPORT_RUNS):
        run = subprocess.run([sys.executable, "-X", "importtime", *argv], input=stdin, capture_output=True, check=False)
        for line in run.stderr.decode().splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line.split("|")
            if not name.startswith("  "):  # one space after the bar: imported by the program itself
                samples.setdefault(name.strip(), []).append(int(cumulative) / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def _flusher_idle(directory: Path) -> bool:
    return lock_is_free(directory / "flush.lock")


def _ledger_lines(directory: Path) -> int:
    return line_count(directory / "ledger.jsonl")


def main() -> None:
    elydora = _elydora()
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
            "python -c build_parser()": (
                [sys.executable, "-c", "from elydora_cli.main import build_parser; build_parser()"],
                b"",
            ),
            "python -c log.configure()": (
                [sys.executable, "-c", "from elydora_config import log; log.configure()"],
                b"",
            ),
            "python -c pass (with site)": ([sys.executable, "-c", "pass"], b""),
        }
        times = interleaved_command_times(commands, repeat=REPEAT)
        for name, seconds in times.items():
            if name != baseline:
                report(Figure(name, seconds, "s", baseline, times[baseline]))
        print(f"top-level imports of one `elydora hook` run (median of {IMPORT_RUNS}, cumulative):", flush=True)
        entry = elydora[1:] if elydora[0] == sys.executable else elydora
        imports = _top_level_imports([*entry, *hook[len(elydora) :]], REQUEST)
        for name, ms in sorted(imports.items(), key=lambda item: -item[1])[:15]:
            print(f"  {ms:8.2f} ms  {name}", flush=True)
        directory = root / ".elydora" / "codex"
        runs = 2 * (3 + REPEAT) + IMPORT_RUNS  # warm-ups and samples of two hook commands, the import runs
        deadline = time.monotonic() + 60
        while not (_ledger_lines(directory) >= runs and _flusher_idle(directory)) and time.monotonic() < deadline:
            time.sleep(0.1)
        print(f"neutral events recorded in the ledger: {_ledger_lines(directory)} of {runs}", flush=True)
    dump_json()


if __name__ == "__main__":
    main()
