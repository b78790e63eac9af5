"""Asking Grok Build which hooks it loads: ``grok inspect --json`` (Grok 0.2.111).

Its ``hooks`` array lists each loaded hook with ``event``, ``hookType``, ``target`` (the command) and its
``source``. Grok has no trust gate for user hooks, so every listed hook counts as trusted and enabled; what must
show is each of our entries, by event and command. Every failure is one
:class:`~elydora_cli.plug.agentprobe.ProbeError` (the caller falls back to the file-level check).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from ..plug.agentprobe import AGENT, FILE_LEVEL, ListedHook, ProbeError, ProbeReport
from ..plug.context import Context

TIMEOUT_SECONDS = 30.0
"""How long ``grok inspect`` may take (well under a second here)."""


def executable(ctx: Context) -> str | None:
    from .. import catalog

    for name in catalog.provider("grok").executables:
        found = shutil.which(name, path=ctx.env.get("PATH", os.defpath))
        if found:
            return found
    return None


class GrokProbe:
    """``grok inspect --json`` for one home and project."""

    name = "grok inspect"
    records_trust = False
    compares_commands = True

    def __init__(self, ctx: Context, timeout: float = TIMEOUT_SECONDS) -> None:
        self._ctx = ctx
        self._timeout = timeout
        self.report = ProbeReport()

    def available(self) -> bool:
        return executable(self._ctx) is not None

    def listed(self) -> list[ListedHook]:
        try:
            hooks = self._inspect()
        except ProbeError as exc:
            self.report = ProbeReport(FILE_LEVEL, f"file-level check only: {exc}")
            raise
        self.report = ProbeReport(AGENT, f"checked with {self.name}")
        return hooks

    def hashes_for(self, hooks_text: str) -> dict[str, str]:
        raise ProbeError("Grok has no hook trust to record")

    def _inspect(self) -> list[ListedHook]:
        exe = executable(self._ctx)
        if exe is None:
            raise ProbeError("Grok not found (no grok on PATH)")
        env = {**self._ctx.env, "HOME": str(self._ctx.home)}
        try:
            done = subprocess.run(
                [exe, "inspect", "--json"], cwd=self._ctx.repo_root, env=env, capture_output=True,
                timeout=self._timeout, check=False, stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise ProbeError("Grok did not answer in time") from None
        except OSError as exc:
            raise ProbeError(f"Grok did not start ({exc.strerror or exc})") from None
        if done.returncode != 0:
            raise ProbeError(f"Grok did not answer (grok inspect exited with {done.returncode})")
        try:
            rows = json.loads(done.stdout)["hooks"]
            return [
                ListedHook(f"{h['event']}:{h['target']}", "", "trusted", True, str(h["event"]), str(h["target"]))
                for h in rows
                if h.get("hookType") == "command"
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise ProbeError(f"grok inspect answered in an unknown shape ({exc!r})") from None
