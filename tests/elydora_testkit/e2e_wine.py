"""A real agent's own Windows build under Wine, with our hooks installed by the Windows CPython (docs/e2e.md
"Under Wine").

The Windows test bed is the one ``tests/windows/setup.sh`` prepares (Wine, the embeddable CPython, node.exe,
the ``bcryptprimitives.dll`` stand-in in its prefix). Each session gets its own namespace driver whose private
mount namespace puts a throw-away overlay on that shared prefix (so its wineserver, registry and profile are
this session's own) and binds the sandbox's home over the Windows user profile: inside, ``%USERPROFILE%`` is
the sandbox home, and ``elydora`` run by ``python.exe`` needs no ``--root``, as a Windows user types it. Every
Windows process (``elydora``, the agent, and the hooks the agent starts) runs in that namespace, with only
loopback and the fake model.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import time
from pathlib import Path, PureWindowsPath
from typing import Any

from elydora_testkit.e2e_harness import (
    BINDS_ENV,
    OVERLAYS_ENV,
    SYSTEM_PATH,
    Driver,
    Run,
    mark_unread,
    read_log,
    was_read,
)

REPO = Path(__file__).resolve().parents[2]
RUN_SH = REPO / "tests" / "windows" / "run.sh"
WINE = Path("/usr/lib/wine/wine64")
RUN_TIMEOUT = 150
WINE_ENV = {"WINEDEBUG": "-all", "WINEDLLOVERRIDES": "mscoree,mshtml="}


def windows_cache() -> Path:
    return Path(os.environ.get("ELYDORA_WINDOWS_CACHE") or Path.home() / ".cache" / "elydora-windows").expanduser()


def wine_problem() -> str | None:
    """Why no Windows program can run here, or None."""
    if not WINE.exists():
        return f"Wine is not installed ({WINE}; bash tests/windows/setup.sh installs it)"
    cache = windows_cache()
    needed = [cache / "python" / "python.exe", cache / "prefix" / "system.reg",
              cache / "prefix" / "drive_c" / "windows" / "system32" / "bcryptprimitives.dll"]
    missing = [str(path) for path in needed if not path.exists()]
    if missing:
        return f"the Windows test bed is not prepared ({', '.join(missing)} missing; bash tests/windows/setup.sh)"
    return None


def node_exe() -> Path | None:
    """The node.exe setup.sh fetched (the newest of them)."""
    found = sorted(windows_cache().glob("node-*/node.exe"))
    return found[-1] if found else None


class WineSession:
    """One sandbox: a Windows home (``%USERPROFILE%`` inside the driver's namespace), its project folder
    ``work`` in it, and the driver running every Windows process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.logs = root / "logs"
        for folder in (self.home / "work", self.home / "AppData" / "Local" / "Temp", self.home / "AppData" / "Roaming",
                       self.logs):
            folder.mkdir(parents=True, exist_ok=True)
        self.user = getpass.getuser()
        prefix = windows_cache() / "prefix"
        self.profile = prefix / "drive_c" / "users" / self.user
        """The home as Wine shows it to the Windows processes: ``C:\\users\\<user>``, bound to :attr:`home`."""
        self.windows_home = PureWindowsPath("C:\\users", self.user)
        saved = {name: os.environ.get(name) for name in (OVERLAYS_ENV, BINDS_ENV)}
        os.environ[OVERLAYS_ENV] = json.dumps([[str(prefix), str(root / "prefix-overlay")]])
        os.environ[BINDS_ENV] = json.dumps([[str(self.home), str(self.profile)]])
        try:
            self.driver = Driver(root)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    @property
    def work(self) -> Path:
        """The project folder as the namespace sees it, through the bound profile (Wine names it
        ``C:\\users\\<user>\\work``); from the host it is ``home / "work"``."""
        return self.profile / "work"

    @property
    def windows_work(self) -> PureWindowsPath:
        return self.windows_home / "work"

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"PATH": SYSTEM_PATH, "HOME": str(self.root), "USER": self.user, "LANG": "C.UTF-8",
                "ELYDORA_WINDOWS_CACHE": str(windows_cache()), "WINEPREFIX": str(windows_cache() / "prefix"),
                **WINE_ENV, **(extra or {})}

    def _run(self, name: str, argv: list[str], env: dict[str, str]) -> tuple[int, str, str, float]:
        out, err = self.logs / f"{name}.stdout", self.logs / f"{name}.stderr"
        answer = self.driver.call(op="run", argv=argv, env=env, cwd=str(self.work), timeout=RUN_TIMEOUT,
                                  stdout=str(out), stderr=str(err))
        assert not answer["timed_out"], f"{argv[:3]} did not finish in {RUN_TIMEOUT}s: {err.read_text()[-2000:]}"
        return answer["rc"], out.read_text(errors="replace"), err.read_text(errors="replace"), answer["seconds"]

    def elydora(self, *args: str, check: bool = True) -> tuple[int, str]:
        """``elydora ARGS`` run by the Windows CPython from the project folder (stdout and stderr together)."""
        env = self.env({"ELYDORA_WINDOWS_CWD": str(self.work)})
        rc, out, _err, _seconds = self._run("elydora", ["bash", str(RUN_SH), "-m", "elydora_cli", *args], env)
        if check:
            assert rc == 0, f"elydora {' '.join(args)} exited {rc}:\n{out[-3000:]}"
        return rc, out

    def run_agent(self, phase: str, argv: list[str], env: dict[str, str], *, tool: str,
                  call: dict[str, Any]) -> Run:
        """The agent's Windows build, run by Wine in the namespace; the fake model calls ``tool`` once with
        ``call``'s arguments. The guard's and audit hook's reads are tracked from a clean slate."""
        log = self.logs / f"{phase}.requests.jsonl"
        self.driver.call(op="reset", tool=tool, command="", log=str(log), arguments=call)
        mark_unread(self.runtime_dir)
        proof = self.home / "work" / "hello.txt"
        proof.unlink(missing_ok=True)
        rc, out, err, seconds = self._run(phase, [str(WINE), *argv], self.env(env))
        return Run(phase=phase, rc=rc, timed_out=False, seconds=seconds, stdout=out, stderr=err,
                   requests=read_log(log), proof_exists=proof.exists(), workdir=self.home / "work")

    @property
    def runtime_dir(self) -> Path:
        return self.home / ".elydora" / "claudecode"

    def ran(self, kind: str) -> bool:
        return was_read(self.runtime_dir, kind)

    def ledger(self, provider: str) -> list[dict[str, Any]]:
        """The ledger after ``audit flush`` (retried while the hooks' own flusher holds the lock)."""
        deadline = time.monotonic() + 30
        while True:
            _rc, out = self.elydora("audit", "flush", "--provider", provider, "--json", check=False)
            if '"drained"' in out or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        _rc, out = self.elydora("audit", "tail", "--provider", provider, "--json", "-n", "100000")
        (document,) = [line for line in out.splitlines() if line.startswith("{")]  # stderr is merged in
        entries: list[dict[str, Any]] = json.loads(document)["entries"]  # one document: {"ledger", "entries"}
        return entries

    def records(self) -> tuple[int, int]:
        """(ledger entries, spooled bytes), read from the files: cheaper than a flush under Wine, and enough to
        see whether anything was recorded in between."""
        sizes = []
        for name in ("ledger.jsonl", "spool.jsonl"):
            try:
                sizes.append((self.runtime_dir / name).read_bytes())
            except FileNotFoundError:
                sizes.append(b"")
        return len(sizes[0].splitlines()), len(sizes[1])

    def close(self) -> None:
        self.driver.close()
        overlay = self.root / "prefix-overlay"
        if overlay.exists():  # a copy of what the session's Wine wrote: hundreds of MB of nothing to keep
            shutil.rmtree(overlay, ignore_errors=True)


def wine_version() -> str:
    return subprocess.run([str(WINE), "--version"], capture_output=True, text=True, check=False).stdout.strip()
