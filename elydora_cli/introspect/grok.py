"""Asking Grok Build which hooks it loads: ``grok inspect --json`` (Grok 0.2.111).

Its ``hooks`` array lists each hook it found with ``event``, ``hookType``, ``target`` (the command) and its
``source``; those it will not run carry ``"disabled": true`` (seen on the Claude Code hooks it cross-loads, with
``vendor`` and ``compatibilityStatus``, once ``[compat.claude] hooks = false``). Grok has no trust gate for user
hooks, so every listed hook counts as trusted; what must show is each of our entries, by event and command,
not disabled. Every failure is one
:class:`~elydora_cli.plug.agentprobe.ProbeError` (the caller falls back to the file-level check).
"""

from __future__ import annotations

import json

from ..plug.agentprobe import ListedHook, ProbeError
from .probe import ExecutableProbe


class GrokProbe(ExecutableProbe):
    """``grok inspect --json`` for one home and project."""

    provider_id = "grok"
    name = "grok inspect"
    display = "Grok"
    records_trust = False
    compares_commands = True

    def hashes_for(self, hooks_text: str) -> dict[str, str]:
        raise ProbeError("Grok has no hook trust to record")

    def _list(self) -> list[ListedHook]:
        exe = self._exe()
        import subprocess  # only when Grok is at hand: a read-only status elsewhere needs no process machinery

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
                ListedHook(f"{h['event']}:{h['target']}", "", "trusted", h.get("disabled") is not True,
                           str(h["event"]), str(h["target"]))
                for h in rows
                if h.get("hookType") == "command"
            ]
        except (ValueError, KeyError, TypeError) as exc:
            raise ProbeError(f"grok inspect answered in an unknown shape ({exc!r})") from None
