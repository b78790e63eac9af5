"""The demo's steps, for every agent at once, and the table that says whether each one held.

1. ``elydora install --every`` into the sandbox home (one transaction per agent);
2. every installed guard entry is run as the agent runs it (its argv, cwd, timeout and a native payload
   shipped in the package, :mod:`elydora_cli.installer.verify`) against the agent's real sandbox state: allowed;
3. every audit entry likewise, then ``audit tail`` shows the newest signed record and ``audit verify``
   checks every signature and the chain: recorded;
4. ``agent freeze``, the guard again: the agent's block protocol; ``agent unfreeze``, the guard again:
   allowed again;
5. ``elydora uninstall --all``; every file the home held before is byte-identical with its mode, and
   nothing of ours is left outside ``.elydora/``.

The commands run in this process with the sandbox as ``HOME`` and a minimal environment (an agent variable
of the user's, such as ``CLAUDE_CONFIG_DIR``, would move an agent's files out of the sandbox).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TextIO

from elydora_config.records import field, record

from ..installer import verify
from ..main import main
from ..plug import runners
from ..plug.context import Context
from ..presence import config_dir
from ..recovery_hint import command_line
from .sandbox import Sandbox, differences, snapshot

KEPT_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TERM", "USER", "LOGNAME")
"""The only variables of the caller's environment the sandbox keeps (``HOME`` becomes the sandbox home)."""
WINDOWS_VARIABLES = ("SYSTEMROOT", "WINDIR", "PATHEXT", "COMSPEC", "TEMP", "TMP", "USERNAME")
"""Kept as well on Windows, where a process cannot start without ``SYSTEMROOT`` (``USERPROFILE``, the home
there, becomes the sandbox home too)."""
STEPS = ("allow", "record", "block", "uninstall identical")
WORKERS = 4


@record
class Row:
    provider: str
    results: dict[str, str] = field(default_factory=dict)
    """Step -> ``ok``, ``FAIL``, or ``n/a`` (the agent's runner, e.g. ``node``, is not on this machine)."""
    details: list[str] = field(default_factory=list)
    not_here: str = ""
    """Why a step is ``n/a`` (the first reason met): what the agent runs its hooks with cannot run here."""

    def held(self, step: str, ok: bool, detail: str = "") -> None:
        if self.results.get(step) in ("FAIL", "n/a"):
            return
        self.results[step] = "ok" if ok else "FAIL"
        if detail:
            self.details.append(f"{step}: {detail}")

    @property
    def ok(self) -> bool:
        return all(self.results.get(step) in ("ok", "n/a") for step in STEPS)


@contextlib.contextmanager
def sandbox_environment(home: str) -> Iterator[None]:
    """``os.environ`` reduced to :data:`KEPT_VARIABLES` plus ``HOME``, restored afterwards."""
    saved = dict(os.environ)
    names = KEPT_VARIABLES + (WINDOWS_VARIABLES if os.name == "nt" else ())
    kept = {name: saved[name] for name in names if name in saved}
    os.environ.clear()
    os.environ.update(kept, HOME=home)
    if os.name == "nt":
        os.environ["USERPROFILE"] = home
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def cli(*argv: str) -> tuple[int, str, str]:
    """One ``elydora`` command in this process, its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def context(box: Sandbox) -> Context:
    """What ``--root <home> --repo-root <project>`` describes inside :func:`sandbox_environment`."""
    return Context(
        home=box.home,
        state_root=box.home,
        repo_root=box.project,
        env=dict(os.environ),
        python=os.path.abspath(sys.executable),
        windows=os.name == "nt",  # as the commands' own context (commands/options.py)
        rooted=True,
    )


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:160] if text else ""


POWERSHELL_PROOF = ("exit 7", 7)
"""The script :func:`powershell_missing` hands PowerShell, and the exit code a working one gives for it."""


def powershell_missing(env: dict[str, str]) -> str | None:
    """Why the PowerShell the agents run on Windows cannot run a hook here (``None``: it can): it is missing, or
    it does not run a script (Wine's ``powershell.exe`` is a stub that exits 0 whatever the script says)."""
    script, expected = POWERSHELL_PROOF
    argv = runners.powershell_argv(script, env)
    try:
        done = subprocess.run(argv, input=b"", capture_output=True, env=env, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"PowerShell is not executed here: {argv[0]} cannot run ({exc})"
    if done.returncode != expected:
        return (f"PowerShell is not executed here: {argv[0]} -Command '{script}' exits {done.returncode}, not "
                f"{expected} (a stub, as Wine's)")
    return None


def _run(probes: list[verify.Probe]) -> list[tuple[verify.Probe, str | None, str]]:
    """Each probe run against the real state: (probe, problem or ``None``, what the agent saw); a probe the
    agent runs through PowerShell is ``n/a`` when PowerShell cannot run it here."""
    env = dict(os.environ)
    no_powershell = None
    if any(runners.is_powershell(p.entry.argv) for p in probes):
        no_powershell = powershell_missing(env)

    def one(probe: verify.Probe) -> tuple[verify.Probe, str | None, str]:
        if no_powershell is not None and runners.is_powershell(probe.entry.argv):
            return probe, f"n/a: {no_powershell}", ""
        try:
            code, stdout, stderr = verify.execute(probe, env)
        except OSError as exc:
            return probe, f"n/a: cannot run {probe.entry.argv[0]} ({exc.strerror or exc})", ""
        seen = _first_line(stdout) or _first_line(stderr)
        return probe, verify.judge(probe, code, stdout, stderr, None), f"exit {code} {seen}".rstrip()

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(one, probes))


def _apply(rows: dict[str, Row], step: str, outcomes: list[tuple[verify.Probe, str | None, str]]) -> None:
    for probe, problem, _seen in outcomes:
        row = rows[probe.provider]
        if problem is not None and problem.startswith("n/a"):
            row.results[step] = "n/a"
            row.not_here = row.not_here or problem[5:]
        else:
            row.held(step, problem is None, "" if problem is None else f"{probe.entry.event}: {problem}")


class Tour:
    """The steps, in order; each one records into :attr:`rows` and narrates to ``out``."""

    def __init__(self, box: Sandbox, out: TextIO, providers: list[str]) -> None:
        self.box, self.out, self.providers = box, out, providers
        self.rows = {pid: Row(pid) for pid in providers}
        self.home = str(box.home)
        self.probes: dict[str, list[verify.Probe]] = {}

    def say(self, text: str) -> None:
        self.out.write(text + "\n")

    def run(self) -> list[Row]:
        before = snapshot(self.box.home)
        steps: list[Callable[[], None]] = [self.install, self.allow, self.record, self.block, self.uninstall]
        for step in steps:
            step()
        problems = differences(before, self.box.home)
        for pid in self.providers:
            mine = [p for p in problems if p.startswith(self._own_dir(pid))]
            self.rows[pid].held("uninstall identical", not mine, "; ".join(mine[:3]))
        unowned = [p for p in problems if not any(p.startswith(self._own_dir(pid)) for pid in self.providers)]
        for pid in self.providers:
            self.rows[pid].held("uninstall identical", not unowned, "; ".join(unowned[:3]))
        self.say(f"{len(before)} original files compared after uninstall (bytes and mode)")
        return [self.rows[pid] for pid in self.providers]

    def _own_dir(self, provider: str) -> str:
        """The agent's directory below the home, as :func:`.sandbox.differences` names paths."""
        return str(config_dir(provider, context(self.box)).relative_to(self.box.home)) + "/"

    def install(self) -> None:
        code, out, err = cli("install", "--every", "--root", self.home, "--repo-root", str(self.box.project))
        self.say(f"$ {command_line(['elydora', 'install', '--every', '--root', self.home])}   -> exit {code}")
        for line in out.splitlines():
            if not line.startswith("  note:"):
                self.say(f"  {line}")
        ctx = context(self.box)
        for pid in self.providers:
            problems, todo = verify.plan(pid, ctx)
            self.probes[pid] = todo
            for problem in problems:
                self.rows[pid].held("allow", False, f"{problem.event}: {problem.reason}")
        if code != 0:
            for pid in self.providers:
                self.rows[pid].held("allow", False, err.strip().splitlines()[-1] if err.strip() else f"exit {code}")

    def _kind(self, kind: str) -> list[verify.Probe]:
        return [p for pid in self.providers for p in self.probes.get(pid, []) if p.kind == kind]

    def allow(self) -> None:
        self.say("guard, as each agent runs it (agent active):")
        outcomes = _run(self._kind("allow"))
        _apply(self.rows, "allow", outcomes)
        self._show(outcomes)

    def _show(self, outcomes: list[tuple[verify.Probe, str | None, str]]) -> None:
        for probe, problem, seen in outcomes:
            self.say(f"  {probe.provider:<11} {probe.entry.event:<11} {seen}" + (f"  {problem}" if problem else ""))

    def record(self) -> None:
        self.say("audit hook, as each agent runs it; then the signed ledger:")
        audits = self._kind("audit")
        _apply(self.rows, "record", _run(audits))
        for pid in self.providers:
            wanted = sum(1 for p in audits if p.provider == pid)
            code, out, err = cli("audit", "verify", "--provider", pid, "--root", self.home, "--json")
            report = json.loads(out) if code == 0 and out.strip() else {}
            entries, pending = report.get("entries", 0), report.get("pending", 0)
            ok = code == 0 and entries >= wanted > 0 and pending == 0
            self.rows[pid].held("record", ok, "" if ok else f"audit verify exit {code}, {entries} of {wanted} "
                                f"entries, {pending} pending {err.strip()}")
            _, tail, _ = cli("audit", "tail", "--provider", pid, "--root", self.home, "-n", "1")
            verdict = "chain OK" if code == 0 else "BROKEN"
            self.say(f"  {pid:<11} audit verify: {entries} signed entries, {verdict}; newest: {tail.strip()}")

    def block(self) -> None:
        self.say("agent freeze, then the guard as each agent runs it; agent unfreeze, the guard again:")
        for pid in self.providers:
            code, _, err = cli("agent", "freeze", "--provider", pid, "--root", self.home, "--reason", "elydora demo")
            self.rows[pid].held("block", code == 0, err.strip())
        outcomes = _run(self._kind("block"))
        _apply(self.rows, "block", outcomes)
        self._show(outcomes)
        for pid in self.providers:
            code, _, err = cli("agent", "unfreeze", "--provider", pid, "--root", self.home)
            self.rows[pid].held("block", code == 0, err.strip())
        again = _run(self._kind("allow"))
        _apply(self.rows, "block", [(p, None if e is None else f"after unfreeze: {e}", s) for p, e, s in again])

    def uninstall(self) -> None:
        code, _, err = cli("uninstall", "--all", "--root", self.home, "--repo-root", str(self.box.project))
        self.say(f"$ {command_line(['elydora', 'uninstall', '--all', '--root', self.home])}   -> exit {code}")
        if code != 0:
            for pid in self.providers:
                self.rows[pid].held("uninstall identical", False, err.strip() or f"exit {code}")


def table(rows: list[Row]) -> str:
    """``agent | allow | record | block | uninstall identical``, one line per agent."""
    width = max([len("agent"), *(len(r.provider) for r in rows)])
    lines = [" | ".join([f"{'agent':<{width}}", *STEPS])]
    for row in rows:
        cells = [f"{row.results.get(step, 'FAIL'):<{len(step)}}" for step in STEPS]
        lines.append(" | ".join([f"{row.provider:<{width}}", *cells]).rstrip())
    return "\n".join(lines)

