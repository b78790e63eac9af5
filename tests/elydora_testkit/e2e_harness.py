"""Host side of the e2e tests: the namespace driver, the sandbox home, the ``elydora`` CLI and the logs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

E2E_DIR = Path(__file__).resolve().parents[1] / "e2e"
"""The e2e suite's folder: its scripts (install_agents.py, driver.py) run from there as child processes."""
INSTALL_SCRIPT = E2E_DIR / "install_agents.py"
COMMAND = "echo hello > hello.txt"
PROOF_FILE = "hello.txt"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
RESULTS: dict[tuple[str, str], str] = {}  # (agent, phase) -> outcome, for the closing table
VERSIONS: dict[str, str] = {}
INSTALL_TIMING: list[str] = []


def record_version(agent: str, version: str) -> None:
    VERSIONS[agent] = version


def cache_dir() -> Path:
    return Path(os.environ.get("ELYDORA_E2E_CACHE") or Path.home() / ".cache" / "elydora-e2e").expanduser()


class DriverError(Exception):
    pass


BINDS_ENV = "ELYDORA_E2E_BINDS"
"""JSON ``[[source, target], ...]``: the driver also gets a private mount namespace and binds each source
directory over the target (e.g. a sandbox's ``etc/claude-code`` over ``/etc/claude-code``), so agents read
a managed layer the machine's ``/etc`` never holds (see driver.py)."""
OVERLAYS_ENV = "ELYDORA_E2E_OVERLAYS"
"""JSON ``[[folder, scratch], ...]``: in that private mount namespace each folder is under a throw-away overlay
(its writes go to ``scratch``), before the binds (e.g. the shared Wine prefix, see e2e_wine.py)."""


class Driver:
    """One ``unshare -n`` child running ``driver.py``: the fake model and the agent runs, loopback only."""

    def __init__(self, workdir: Path) -> None:
        self.stderr_path = workdir / "driver.stderr"
        self._stderr = open(self.stderr_path, "wb")  # noqa: SIM115 - closed in close()
        mount = ["--mount"] if os.environ.get(BINDS_ENV) or os.environ.get(OVERLAYS_ENV) else []
        self.proc = subprocess.Popen(
            ["unshare", "--net", *mount, sys.executable, str(E2E_DIR / "driver.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True, bufsize=1,
        )
        hello = self._read()
        if not hello.get("ready"):
            raise DriverError(f"driver did not start: {hello}")
        self.port: int = hello["port"]
        self.interfaces: list[str] = hello["interfaces"]

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(timeout=10)
            raise DriverError(
                f"driver exited {self.proc.returncode}: {self.stderr_path.read_text(errors='replace')[-2000:]}"
            )
        return json.loads(line)  # type: ignore[no-any-return]

    def call(self, **request: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.call(op="quit")
                self.proc.wait(timeout=10)
        except (DriverError, OSError, subprocess.TimeoutExpired, ValueError):
            self.proc.kill()
            self.proc.wait()
        finally:
            self._stderr.close()


def unshare_problem() -> str | None:
    """Why a loopback-only network namespace cannot be made here, or None."""
    if shutil.which("unshare") is None:
        return "`unshare` (util-linux) is not installed, so no loopback-only network namespace can be made"
    probe = subprocess.run(["unshare", "--net", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"`unshare --net` is not permitted here ({probe.stderr.strip() or probe.returncode})"
    return None


@dataclass
class Run:
    """One headless run of an agent, and what it left behind."""

    phase: str
    rc: int
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]
    proof_exists: bool
    workdir: Path

    @property
    def model_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r.get("answer") in ("tool_call", "text")]

    @property
    def tool_call(self) -> dict[str, Any] | None:
        return next((r for r in self.requests if r.get("answer") == "tool_call"), None)

    def after_tool_call(self) -> list[dict[str, Any]]:
        """The model requests that came after the tool call (they carry the tool's result)."""
        seen, out = False, []
        for r in self.model_requests:
            if seen:
                out.append(r)
            seen = seen or r.get("answer") == "tool_call"
        return out

    def describe(self) -> str:
        reqs = [f"{r.get('method')} {r.get('path')} -> {r.get('answer')} tools={len(r.get('tools') or [])}"
                for r in self.requests]
        return (
            f"[{self.phase}] rc={self.rc} timed_out={self.timed_out} {self.seconds}s proof={self.proof_exists}\n"
            f"requests:\n  " + "\n  ".join(reqs or ["(none)"]) + "\n"
            f"stdout (tail):\n{self.stdout[-2500:]}\nstderr (tail):\n{self.stderr[-2500:]}"
        )


@dataclass
class Sandbox:
    """A fresh home for one agent: the agent's own settings, our install, its project folder."""

    agent: str
    root: Path
    home: Path = field(init=False)
    work: Path = field(init=False)
    logs: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.root / "home"
        self.work = self.root / "work"
        self.logs = self.root / "logs"
        for d in (self.home, self.work, self.logs, self.home / "tmp"):
            d.mkdir(parents=True, exist_ok=True)

    def elydora(self, *args: str, check: bool = True,
                path_prefix: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
        """``elydora ARGS`` exactly as a user would type it, from the project folder (``path_prefix``: folders
        put in front of ``PATH``, e.g. an agent's executable for its introspection)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ELYDORA_", "PYTHON"))}
        env["HOME"] = str(self.home)
        if path_prefix:
            env["PATH"] = os.pathsep.join([*path_prefix, env.get("PATH", os.defpath)])
        proc = subprocess.run(
            [sys.executable, "-m", "elydora_cli", *args], cwd=self.work, env=env, capture_output=True, text=True,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"elydora {' '.join(args)} exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            )
        return proc

    @property
    def agent_dir(self) -> Path:
        return self.home / ".elydora" / self.agent

    def spool_lines(self) -> list[str]:
        try:
            return [ln for ln in (self.agent_dir / "spool.jsonl").read_text().splitlines() if ln.strip()]
        except FileNotFoundError:
            return []

    def ledger(self, wait: float = 20.0) -> list[dict[str, Any]]:
        """Every ledger entry, once every spooled event is signed into it (``elydora audit flush``; while the
        hooks' own background flusher holds the lock, it says busy and we wait for it)."""
        deadline = time.monotonic() + wait
        while True:
            flush = self.elydora("audit", "flush", "--provider", self.agent, "--root", str(self.home), "--json",
                                 check=False)
            if '"drained"' in flush.stdout or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        tail = self.elydora("audit", "tail", "--provider", self.agent, "--root", str(self.home), "--json",
                            "-n", "100000")
        entries: list[dict[str, Any]] = json.loads(tail.stdout)["entries"]
        return entries

    def clear_bytecode(self) -> None:
        """Forget which runtime modules ran (see :func:`mark_unread`)."""
        mark_unread(self.agent_dir)

    def runtime_ran(self, kind: str) -> bool:
        """Whether the generated runtime module ran since ``clear_bytecode`` (see :func:`was_read`)."""
        return was_read(self.agent_dir, kind)

    def reset_work(self) -> None:
        proof = self.work / PROOF_FILE
        if proof.exists():
            proof.unlink()


RUNTIME_MODULES = {"guard": "_elydora_guard", "audit": "_elydora_audit"}


def mark_unread(runtime_dir: Path) -> None:
    """Set the access time of the runtime's compiled modules (the ``.code`` files the launchers load) before
    their modification time: the next read moves it past, on a file system that records reads (``relatime``,
    the default, does when the access time is not after the modification time)."""
    for path in runtime_dir.glob("_elydora_*.code"):
        info = path.stat()
        os.utime(path, ns=(info.st_mtime_ns - 60_000_000_000, info.st_mtime_ns))


def was_read(runtime_dir: Path, kind: str) -> bool:
    """Whether a launcher loaded the ``kind`` module (``guard``/``audit``) since :func:`mark_unread` (never when
    there is none: after an uninstall). ``status`` reads the files too (it checks them): call no ``elydora
    status`` in between."""
    files = [p.stat() for p in runtime_dir.glob(f"{RUNTIME_MODULES[kind]}.*.code")]
    return any(info.st_atime_ns > info.st_mtime_ns for info in files)


def read_log(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]
    except FileNotFoundError:
        return []


def strings_in(obj: Any) -> Iterator[str]:
    """Every string inside ``obj``, and inside any string that is itself JSON (tool results often are)."""
    if isinstance(obj, str):
        yield obj
        if obj[:1] in ("{", "["):
            try:
                inner = json.loads(obj)
            except ValueError:
                return
            yield from strings_in(inner)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield key
            yield from strings_in(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from strings_in(value)


def contains(obj: Any, needle: str) -> bool:
    return any(needle in text for text in strings_in(obj))
