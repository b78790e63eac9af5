"""A real agent reading our entries from its managed layer, in a private mount namespace (``--scope system``).

``elydora install <agent> --scope system --root <sysroot>`` writes ``<sysroot>/etc/...`` and the root-owned
launchers under ``<sysroot>/usr/local/lib/elydora``; the namespace driver binds the directory of every managed
layer (``<sysroot>/etc/claude-code`` over ``/etc/claude-code``...) through a throw-away overlay of ``/etc``: the
machine's ``/etc`` is never touched. The user-scope install every session makes is removed first, so whatever
runs comes from the managed layer alone.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from elydora_cli import managed
from elydora_testkit.e2e_harness import BINDS_ENV, Run
from elydora_testkit.e2e_session import AgentSession, assert_reached_only_the_fake_model, open_session


class System:
    """One agent's session with its entries in the managed layer of a sandbox system root."""

    def __init__(self, session: AgentSession, sysroot: Path) -> None:
        self.s, self.sysroot = session, sysroot
        self.runtime = sysroot / managed.RUNTIME_ROOT.lstrip("/") / session.agent.id
        user = pwd.getpwuid(os.getuid())
        self.user_state = (sysroot / user.pw_dir.lstrip("/") / ".elydora"
                           / managed.user_dir_name(session.agent.id, user.pw_name))

    def elydora(self, *args: str) -> Any:
        return self.s.sandbox.elydora(*args, "--scope", "system", "--root", str(self.sysroot))

    def ran(self, kind: str) -> bool:
        module = "_elydora_guard" if kind == "guard" else "_elydora_audit"
        return any((self.runtime / "__pycache__").glob(f"{module}.*.pyc"))

    def run(self, phase: str, argv: list[str] | None = None) -> Run:
        s = self.s
        s.sandbox.reset_work()
        shutil.rmtree(self.runtime / "__pycache__", ignore_errors=True)
        run = s.run_raw(phase, argv or s.agent.argv(s.info["bin"]), tool=s.agent.shell_tool)
        assert not run.timed_out, run.describe()
        assert_reached_only_the_fake_model(run)
        return run

    def ledger(self) -> list[dict[str, Any]]:
        path = self.user_state / "ledger.jsonl"
        return [json.loads(line)["record"] for line in path.read_text().splitlines()] if path.exists() else []


def write_settings(path: Path, value: dict[str, Any] | None) -> None:
    """A user's own settings file for one test: written as JSON, or removed with ``None``."""
    if value is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def system_session(agent_id: str, agent_cache: dict[str, Any], root: Path) -> Iterator[System]:
    sysroot = root / "sysroot"
    layers = [managed.LAYERS[a].path for a in managed.LAYERS]
    binds = [[str(sysroot / os.path.dirname(p).lstrip("/")), os.path.dirname(p)] for p in layers]
    for source, _ in binds:
        Path(source).mkdir(parents=True, exist_ok=True)
    (sysroot / pwd.getpwuid(os.getuid()).pw_dir.lstrip("/")).mkdir(parents=True, exist_ok=True)
    os.environ[BINDS_ENV] = json.dumps(binds)  # read when the session starts its driver
    try:
        sessions = open_session(agent_id, agent_cache, root)
        s = next(sessions)
    finally:
        del os.environ[BINDS_ENV]
    try:
        s.sandbox.elydora("uninstall", agent_id, "--root", str(s.sandbox.home))
        system = System(s, sysroot)
        system.elydora("install", agent_id)
        yield system
    finally:
        sessions.close()
