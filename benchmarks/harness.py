"""The project's benchmark harness: medians, ratios to a baseline measured in the same run, peak memory.

Every figure is printed next to its baseline and goal, as ``name: value (baseline) ratio=R goal<=G PASS|MISS``.
Benchmarks are run by hand (``python -m benchmarks.<name>``), never inside the unit-test suite. Each one ends
with :func:`finish`, which exits 1 when a printed figure missed its goal, so that a script can run them all.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NoReturn

RESULTS: list[Figure] = []


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    baseline_name: str | None = None
    baseline: float | None = None
    goal: float | None = None
    goal_kind: str = "ratio"  # "ratio" (value/baseline <= goal), "absolute" (value <= goal), "minimum" (>= goal)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline

    @property
    def met(self) -> bool | None:
        if self.goal is None:
            return None
        if self.goal_kind == "minimum":
            return self.value >= self.goal
        measured = self.ratio if self.goal_kind == "ratio" else self.value
        return None if measured is None else measured <= self.goal


def median_time(fn: Callable[[], object], *, repeat: int = 15, warmup: int = 2) -> float:
    """Median wall time of ``fn()`` in seconds, garbage collector paused during each call."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(samples)


def interleaved_times(fns: Mapping[str, Callable[[], object]], *, repeat: int, warmup: int = 2) -> dict[str, float]:
    """Median seconds of each function, run round-robin (the collector paused per call) so that machine noise
    hits them all alike."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
            finally:
                gc.enable()
    return {name: statistics.median(values) for name, values in samples.items()}


def median_command_time(
    argv: Sequence[str],
    *,
    repeat: int = 21,
    warmup: int = 3,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
) -> float:
    """Median wall time of running ``argv`` to completion with ``stdin`` (seconds)."""

    def run() -> None:
        subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    return median_time(run, repeat=repeat, warmup=warmup)


def interleaved_command_times(
    commands: Mapping[str, tuple[Sequence[str], bytes]],
    *,
    repeat: int = 21,
    warmup: int = 3,
    env: dict[str, str] | None = None,
) -> dict[str, float]:
    """Median times of several commands, run round-robin so machine noise hits them all alike."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(warmup):
        for argv, data in commands.values():
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(repeat):
        for name, (argv, data) in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def line_count(path: str | os.PathLike[str]) -> int:
    """Lines in a file (0 when absent): ledger entries, spool records."""
    try:
        with open(path, "rb") as fh:
            return fh.read().count(b"\n")
    except FileNotFoundError:
        return 0


def peak_memory(fn: Callable[[], object]) -> int:
    """Peak bytes allocated by Python while ``fn()`` runs (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def report(fig: Figure) -> Figure:
    """Print one figure and remember it for :func:`dump_json`."""
    RESULTS.append(fig)
    scale, unit = (1e3, "ms") if fig.unit == "s" else (1.0, fig.unit)
    shown = str(fig.value) if isinstance(fig.value, int) else f"{fig.value * scale:.3f}"
    text = f"{fig.name}: {shown} {unit}"
    if fig.baseline is not None:
        text += f"  (baseline {fig.baseline_name}: {fig.baseline * scale:.3f} {unit})"
    if fig.ratio is not None:
        text += f"  ratio={fig.ratio:.2f}x"
    if fig.goal is not None:
        if fig.goal_kind == "minimum":
            text += f"  goal>={fig.goal * scale:g} {unit}"
        else:
            text += "  goal<=" + (f"{fig.goal}x" if fig.goal_kind == "ratio" else f"{fig.goal * scale:g} {unit}")
        text += f" {'PASS' if fig.met else 'MISS'}"
    for key, val in fig.extra.items():
        text += f"  {key}={val}"
    print(text, flush=True)
    return fig


def dump_json(path: str | None = None) -> None:
    """Write every reported figure as JSON (to ``path`` or ``$BENCH_JSON`` when set)."""
    target = path or os.environ.get("BENCH_JSON")
    if not target:
        return
    rows = [dict(asdict(f), ratio=f.ratio, met=f.met) for f in RESULTS]
    with open(target, "w", encoding="utf-8") as fh:
        json.dump({"python": sys.version, "figures": rows}, fh, indent=2)


def missed() -> list[Figure]:
    """The reported figures that missed their goal (figures without a goal never miss)."""
    return [fig for fig in RESULTS if fig.met is False]


def finish(path: str | None = None) -> NoReturn:
    """End a benchmark: write the JSON (see :func:`dump_json`), then exit 1 when a figure missed its goal."""
    dump_json(path)
    failures = missed()
    if failures:
        print(f"MISSED {len(failures)} goal(s): " + "; ".join(fig.name for fig in failures), flush=True)
    raise SystemExit(1 if failures else 0)


def await_count(count: Callable[[], int], expected: int, idle: Callable[[], bool], *, timeout: float = 10.0) -> int:
    """Wait until ``count()`` reaches ``expected`` and ``idle()`` holds (e.g. detached flushers are done), at
    most ``timeout`` seconds; returns the last count, to be reported against ``expected``."""
    deadline = time.monotonic() + timeout
    while not (count() >= expected and idle()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return count()


def console_script(name: str) -> list[str]:
    """The installed console script ``name`` beside this interpreter, else ``python -m elydora_cli``."""
    script = Path(sys.executable).with_name(name)
    return [str(script)] if script.is_file() else [sys.executable, "-m", "elydora_cli"]


def interpreter_floor() -> list[str]:
    """``<python> -I -S -c pass`` with the real interpreter (symlinks and shims resolved): the start-up floor."""
    return [os.path.realpath(sys.executable), "-I", "-S", "-c", "pass"]


def top_level_imports(
    argv: Sequence[str], stdin: bytes = b"", *, runs: int = 5, python: str = sys.executable
) -> dict[str, float]:
    """Median cumulative import time (ms) of each top-level import of ``<python> -X importtime <argv>``."""
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        run = subprocess.run([python, "-X", "importtime", *argv], input=stdin, capture_output=True, check=False)
        for line in run.stderr.decode().splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line.split("|")
            if not name.startswith("  "):  # one space after the bar: imported by the program itself
                samples.setdefault(name.strip(), []).append(int(cumulative) / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def print_imports(imports: dict[str, float], top: int = 15) -> None:
    """Print the costliest imports of :func:`top_level_imports`, most expensive first."""
    for name, ms in sorted(imports.items(), key=lambda item: -item[1])[:top]:
        print(f"  {ms:8.2f} ms  {name}", flush=True)


def compile_bytecode() -> None:
    """Write the bytecode of both packages, as installing a wheel does: a run with ``PYTHONDONTWRITEBYTECODE``
    set (or from a fresh checkout) would otherwise compile every module from source on every start."""
    import compileall

    import elydora_cli
    import elydora_config

    for package in (elydora_cli, elydora_config):
        compileall.compile_dir(os.path.dirname(package.__file__ or ""), quiet=2)


PROJECT_ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "elydora-config"


def _dependency_dirs(name: str = DISTRIBUTION) -> list[str]:
    """The directories holding the installed distributions that ``name`` needs, transitively (requirements of an
    extra are left out; one whose marker excludes this interpreter is simply not installed, and skipped)."""
    import importlib.metadata as metadata
    import re

    dirs: list[str] = []
    seen: set[str] = set()
    pending = [name]
    while pending:
        wanted = pending.pop()
        try:
            dist = metadata.distribution(wanted)
        except metadata.PackageNotFoundError:
            continue
        if wanted != name:
            where = str(dist.locate_file(""))
            if where not in dirs:
                dirs.append(where)
        for requirement in dist.requires or ():
            match = re.match(r"[A-Za-z0-9._-]+", requirement)
            key = match.group(0).lower().replace("_", "-") if match else ""
            if key and "extra ==" not in requirement.replace("'", '"') and key not in seen:
                seen.add(key)
                pending.append(key)
    return dirs


def _pip_install_target(target: Path) -> None:
    """``pip install --no-deps --target`` of the project: a regular (non-editable) wheel install, bytecode
    compiled. Built offline from this environment's setuptools when it can build wheels, else in pip's usual
    isolated build environment.

    The build runs in a copy of the project in a temporary directory: setuptools builds in the source tree, and a
    ``build/`` left in the checkout would feed its stale files (of modules since removed) to the next wheel."""
    import shutil
    import tempfile

    base = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    with tempfile.TemporaryDirectory(prefix="elydora-bench-source-") as scratch:
        source = Path(scratch) / "project"
        shutil.copytree(PROJECT_ROOT, source, ignore=_not_source)
        for isolation in (["--no-build-isolation"], []):
            run = subprocess.run([*base, *isolation, str(source)], capture_output=True, text=True, check=False)
            if run.returncode == 0:
                return
    raise SystemExit(f"pip could not install the project:\n{run.stdout}{run.stderr}")


_NOT_SOURCE = frozenset({".git", ".venv", ".ci-venv", "build", "dist", "__pycache__", ".mypy_cache",
                         ".ruff_cache", ".pytest_cache", ".hypothesis", "demo-home", "node_modules"})  # fmt: skip


def _not_source(directory: str, names: list[str]) -> set[str]:
    """What a wheel is not built from: version control, virtual environments, build output and caches."""
    return {name for name in names if name in _NOT_SOURCE or name.endswith(".egg-info")}


def regular_install(where: Path, script: str = "elydora") -> list[str]:
    """Install the project as a user's ``pip install`` does, into a fresh venv under ``where``, and return the
    argv of its console script ``script``.

    The venv has no system site-packages, so its ``site`` processes no ``.pth`` file but the one written here:
    plain directory lines naming where the dependencies are installed (a plain line runs no code, and the
    ``.pth`` files inside those directories are not processed). The console script is the one pip wrote, with
    its ``#!`` line naming the venv's interpreter."""
    import venv

    env = where / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(env)
    python = env / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    )  # fmt: skip
    _pip_install_target(site_packages)
    (site_packages / "elydora-bench-dependencies.pth").write_text(
        "".join(f"{path}\n" for path in _dependency_dirs()), encoding="utf-8"
    )
    written = site_packages / "bin" / script
    body = written.read_text(encoding="utf-8").split("\n", 1)[1]
    console = env / "bin" / script
    console.write_text(f"#!{python}\n{body}", encoding="utf-8")
    console.chmod(0o755)
    written.unlink()
    written.parent.rmdir()
    return [str(console)]
