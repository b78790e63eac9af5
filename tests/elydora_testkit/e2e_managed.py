"""A real agent reading our entries from its managed layer, in a private mount namespace (``--scope system``).

``elydora install <agent> --scope system --root <sysroot>`` writes ``<sysroot>/etc/...`` and the root-owned
launchers under ``<sysroot>/usr/local/lib/elydora``; the namespace driver binds the directory of every managed
layer (``<sysroot>/etc/claude-code`` over ``/etc/claude-code``...) through a throw-away overlay of ``/etc``: the
machine's ``/etc`` is never touched (the whole ``/etc/<agent>`` folder is bound, so an organization's file
beside our drop-in is the sandbox's too). The user-scope install every session makes is removed first, so
whatever runs comes from the managed layer alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from elydora_cli import managed
from elydora_testkit.e2e_harness import BINDS_ENV, COMMAND, Run, contains, mark_unread, was_read
from elydora_testkit.e2e_session import AgentSession, assert_reached_only_the_fake_model, guard_line, open_session
from elydora_testkit.system_root import runtime, user_state


class System:
    """One agent's session with its entries in the managed layer of a sandbox system root."""

    def __init__(self, session: AgentSession, sysroot: Path) -> None:
        self.s, self.sysroot = session, sysroot
        self.runtime = runtime(sysroot, session.agent.id)
        self.user_state = user_state(sysroot, session.agent.id)

    def elydora(self, *args: str) -> Any:
        return self.s.sandbox.elydora(*args, "--scope", "system", "--root", str(self.sysroot))

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """The agent frozen by root's policy for the ``with`` block, unfrozen after it."""
        self.elydora("agent", "freeze", "--provider", self.s.agent.id)
        try:
            yield
        finally:
            self.elydora("agent", "unfreeze", "--provider", self.s.agent.id)

    def ran(self, kind: str) -> bool:
        return was_read(self.runtime, kind)

    def run(self, phase: str, argv: list[str] | None = None) -> Run:
        s = self.s
        s.sandbox.reset_work()
        mark_unread(self.runtime)
        run = s.run_raw(phase, argv or s.agent.argv(s.info["bin"]), tool=s.agent.shell_tool)
        assert not run.timed_out, run.describe()
        assert_reached_only_the_fake_model(run)
        return run

    def ledger(self) -> list[dict[str, Any]]:
        path = self.user_state / "ledger.jsonl"
        return [json.loads(line)["record"] for line in path.read_text().splitlines()] if path.exists() else []

    def posts(self, wait: float = 20.0) -> list[dict[str, Any]]:
        """The post-tool records of the user's ledger, once the hooks' background flusher has signed them."""
        deadline = time.monotonic() + wait
        while True:
            posts = [r for r in self.ledger() if self.s.agent.post_event_ok(r["payload"])]
            if posts or time.monotonic() > deadline:
                return posts
            time.sleep(0.2)

    def check_allowed(self, argv: list[str] | None = None) -> None:
        """A tool call runs with our managed guard and audit; its one record names the OS user."""
        run = self.run("managed-allow", argv)
        assert run.proof_exists and self.ran("guard") and self.ran("audit"), run.describe()
        posts = self.posts()
        assert len(posts) == 1 and self.s.agent.payload_command(posts[0]["payload"]) == COMMAND, posts
        assert posts[0]["agent_id"] == self.user_state.name  # <agent>@<user>

    def check_blocked(self, run: Run) -> None:
        """Our managed guard blocked the tool call of ``run``, the model read our line, no audit ran."""
        assert not run.proof_exists and self.ran("guard") and not self.ran("audit"), run.describe()
        agent = self.s.agent.id
        assert any(contains(r["body"], guard_line(agent)) for r in run.after_tool_call()), run.describe()


def write_settings(path: Path, value: dict[str, Any] | None) -> None:
    """A user's own settings file for one test: written as JSON, or removed with ``None``."""
    if value is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def system_session(agent_id: str, agent_cache: dict[str, Any], root: Path) -> Iterator[System]:
    sysroot = root / "sysroot"
    folders = sorted({"/".join(managed.LAYERS[a].path.split("/")[:3]) for a in managed.LAYERS})  # /etc/<agent>
    binds = [[str(sysroot / folder.lstrip("/")), folder] for folder in folders]
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
