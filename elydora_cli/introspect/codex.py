"""Asking Codex which hooks it loads: ``codex app-server`` spoken to as JSON-RPC over stdio.

The exchange (Codex 0.171): the ``initialize`` request, the ``initialized`` notification, then
``hooks/list {"cwds": [...]}``, whose answer lists every hook with its ``key``, ``currentHash``,
``trustStatus`` and ``enabled``. Notifications Codex sends in between are skipped. Every failure (no
executable, a crash, no answer within the probe's timeout, an answer of another shape) is one
:class:`~elydora_cli.plug.agentprobe.ProbeError`: the caller falls back to the file-level check.

:meth:`CodexProbe.hashes_for` lets Codex hash a hooks file not yet written: the file goes into a scratch
``CODEX_HOME`` (the hash does not depend on the file's path, only the key does), so install can write the
trust entries in the same transaction as the hooks. The exchange itself is in :mod:`.appserver`, imported
only when Codex is asked (``status`` without a ``codex`` executable does not load the process machinery).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..plug.agentprobe import AGENT, FILE_LEVEL, ListedHook, ProbeError, ProbeReport
from ..plug.context import Context
from ..providers import load
from .probe import ExecutableProbe

HOOKS_FILE = "hooks.json"


def codex_home(ctx: Context) -> Path:
    """Where Codex reads ``hooks.json`` and ``config.toml`` (the provider's one home of that fact)."""
    return load("codex").sources(ctx).targets[0].path.parent


class CodexProbe(ExecutableProbe):
    """``codex app-server`` for one home; :attr:`report` says whether Codex answered."""

    provider_id = "codex"
    name = "codex app-server"
    display = "Codex"
    records_trust = True
    compares_commands = False

    def _list(self) -> list[ListedHook]:
        return self._ask(self._exe(), codex_home(self._ctx), self._ctx.home, self._ctx.repo_root)

    def hashes_for(self, hooks_text: str) -> dict[str, str]:
        import tempfile

        try:
            with tempfile.TemporaryDirectory(prefix="elydora-codex-") as scratch:
                home = Path(os.path.realpath(scratch))
                (home / HOOKS_FILE).write_text(hooks_text, encoding="utf-8")
                hooks = self._ask(self._exe(), home, home, home)
        except ProbeError as exc:
            self.report = ProbeReport(FILE_LEVEL, f"not trusted: {exc}; Codex skips the hooks until they are")
            raise
        self.report = ProbeReport(AGENT, f"trusted with {self.name}")
        prefix = f"{home / HOOKS_FILE}:"
        return {h.key[len(prefix):]: h.current_hash for h in hooks if h.key.startswith(prefix)}

    def _ask(self, exe: str, home: Path, user_home: Path, repo: Path) -> list[ListedHook]:
        """Codex's own list of hooks, with ``home`` as its ``CODEX_HOME`` (``exe`` found first: without it, no
        process machinery is loaded)."""
        from .appserver import list_hooks

        return list_hooks(exe, self._env(home, user_home), str(repo), self._timeout)

    def _env(self, home: Path, user_home: Path) -> dict[str, str]:
        return {**self._ctx.env, "CODEX_HOME": str(home), "HOME": str(user_home)}
