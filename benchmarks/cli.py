"""``elydora install`` into a fresh home, and ``elydora status`` against the interpreter floor
``<python> -I -S -c pass`` (the real interpreter, measured in the same run, round-robin).

Goals: installing the twelve agents of issue 20 (:data:`TWELVE`) into a fresh home <= 1 s (``install --every``,
every supported agent, is printed beside it without a goal); status on a home with those twelve installed <= 8x
the floor. Status on a home with every agent installed is printed beside it (no goal of its own, so that nothing is
hidden by the choice of twelve), and so are ``python -c pass`` with ``site``, a process that imports every module
one twelve-agent ``elydora status`` loads and runs nothing, and the costliest top-level imports of such a run, to
show where the time goes.

The gated figures run what a user of a regular ``pip install`` runs: the project installed as a wheel (not
editable) into a throwaway venv without system site-packages, started by the console script pip wrote
(:func:`benchmarks.harness.regular_install`). Its ``site`` is the user's ``site``, and is counted: it processes
one ``.pth`` file of plain directory lines naming where the dependencies are installed, which runs no code. The
environment the benchmark itself runs in is not what a user pays: a development venv made with
``--system-site-packages`` processes every ``.pth`` file of the machine's site-packages (on some machines hooks
that import ``importlib.resources``, ``pathlib`` or ``urllib`` into every interpreter, so that ``python -c
pass`` alone costs 2.5-3x the floor), and an editable install adds its own import finder. Status and ``python
-c pass`` in this environment are printed beside the gated figures, informational.

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
    regular_install,
    report,
    top_level_imports,
)

REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))
INSTALL_REPEAT = 5
STATUS_GOAL = 8.0
TWELVE = (
    "claudecode", "codex", "gemini", "kimi", "grok", "augment",
    "cline", "copilot", "cursor", "droid", "qwen", "letta",
)  # fmt: skip
"""The home of issue 20's figure: twelve agents installed (JSON, JSONC and TOML configs), the rest absent."""


def _install(elydora: list[str], root: Path, agents: tuple[str, ...] = ()) -> None:
    """Install ``agents`` under ``root`` (every supported agent when none are named); ``root`` is created first,
    as a user's home exists (``--root`` never creates it)."""
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [*elydora, "install", *(agents or ("--every",)), "--root", str(root)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _install_time(elydora: list[str], agents: tuple[str, ...] = ()) -> float:
    """The median wall time of installing ``agents`` (every supported agent when none are named) into a fresh
    home."""
    samples = []
    for _ in range(INSTALL_REPEAT):
        root = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
        try:
            start = time.perf_counter()
            _install(elydora, root, agents)
            samples.append(time.perf_counter() - start)
        finally:
            shutil.rmtree(root)
    return statistics.median(samples)


_LOADED_BY = """import os, sys
before = set(sys.modules)
sys.stdout = open(os.devnull, "w")
from elydora_cli.main import main
main(sys.argv[1:])
sys.stderr.write(" ".join(name for name in sys.modules if name not in before))
"""
"""A child that runs ``elydora <argv>`` and writes the names of the modules it loaded, in their order."""
_IMPORT = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
"""A child that imports the modules it is given, in order, and does nothing else."""


def _imports_alone(python: str, argv: list[str]) -> list[str]:
    """A command that imports every module ``elydora <argv>`` loads, and runs nothing: what a run pays before it
    starts its work."""
    run = subprocess.run([python, "-c", _LOADED_BY, *argv], capture_output=True, text=True, check=False)
    return [python, "-c", _IMPORT, *run.stderr.split()]


def _installed(root: Path) -> list[Path]:
    """The agents installed under ``root`` (one manifest each)."""
    from elydora_cli.installer.manifest import MANIFEST_NAME

    return sorted((root / ".elydora").glob(f"*/{MANIFEST_NAME}"))


def main() -> None:
    compile_bytecode()  # for the figure of this environment (the regular install compiled its own)
    work = Path(tempfile.mkdtemp(prefix="elydora-bench-"))
    try:
        _run(work)
    finally:
        shutil.rmtree(work)
    finish()


def _run(work: Path) -> None:
    elydora = regular_install(work / "install")
    python = str(Path(elydora[0]).with_name("python"))
    twelve_time = _install_time(elydora, TWELVE)
    report(Figure("install of twelve agents (fresh home, regular install)", twelve_time, "s", goal=1.0,
                  goal_kind="absolute"))  # fmt: skip
    report(Figure("install --every (fresh home, regular install)", _install_time(elydora), "s"))
    twelve, every = work / "twelve", work / "every"
    _install(elydora, twelve, TWELVE)
    _install(elydora, every)
    status = {root: [*elydora, "status", "--root", str(root)] for root in (twelve, every)}
    label = {root: f"status ({len(_installed(root))} agents installed)" for root in (twelve, every)}
    here = [*console_script("elydora"), "status", "--root", str(twelve)]
    floor, site = "python -I -S -c pass", "python -c pass (with site, regular install's venv)"
    here_site, here_status = "python -c pass (with site, this environment)", f"{label[twelve]}, this environment"
    imports = f"the imports alone of {label[twelve]}, no run, regular install"
    times = interleaved_command_times(
        {
            floor: (interpreter_floor(), b""),
            label[twelve]: (status[twelve], b""),
            label[every]: (status[every], b""),
            site: ([python, "-c", "pass"], b""),
            imports: (_imports_alone(python, status[twelve][len(elydora) :]), b""),
            here_status: (here, b""),
            here_site: ([sys.executable, "-c", "pass"], b""),
        },
        repeat=REPEAT,
    )
    report(Figure(f"{label[twelve]}, regular install", times[label[twelve]], "s", floor, times[floor], STATUS_GOAL))
    report(Figure(f"{label[every]}, regular install", times[label[every]], "s", floor, times[floor]))
    for name in (site, imports, here_status, here_site):
        report(Figure(name, times[name], "s", floor, times[floor]))
    print(
        "top-level imports of one twelve-agent `elydora status` run of the regular install (median of 5, "
        "cumulative; -X importtime does not list the agent modules, which importlib.import_module loads):",
        flush=True,
    )
    print_imports(top_level_imports([*elydora, *status[twelve][len(elydora) :]], python=python))


if __name__ == "__main__":
    main()
