"""What every introspection probe shares: finding the agent's executable and reporting how a listing went."""

from __future__ import annotations

import os

from .. import catalog
from ..executables import which
from ..plug.agentprobe import AGENT, FILE_LEVEL, ListedHook, ProbeError, ProbeReport
from ..plug.context import Context

TIMEOUT_SECONDS = 30.0
"""How long an agent may take to answer (its own start-up included)."""


def executable(ctx: Context, provider_id: str) -> str | None:
    """The first of the catalog's executables of ``provider_id`` on the context's ``PATH``."""
    for name in catalog.provider(provider_id).executables:
        found = which(name, path=ctx.env.get("PATH", os.defpath))
        if found:
            return found
    return None


class ExecutableProbe:
    """A probe that runs the agent's own executable; subclasses say how to list its hooks (:meth:`_list`)."""

    provider_id = ""
    name = ""
    display = ""
    """The agent's name in messages ("Codex not found ...")."""

    def __init__(self, ctx: Context, timeout: float = TIMEOUT_SECONDS) -> None:
        self._ctx = ctx
        self._timeout = timeout
        self.report = ProbeReport()

    def available(self) -> bool:
        return executable(self._ctx, self.provider_id) is not None

    def listed(self) -> list[ListedHook]:
        """The hooks the agent loads; :attr:`report` says whether it answered (file-level only otherwise)."""
        try:
            hooks = self._list()
        except ProbeError as exc:
            self.report = ProbeReport(FILE_LEVEL, f"file-level check only: {exc}")
            raise
        self.report = ProbeReport(AGENT, f"checked with {self.name}")
        return hooks

    def _exe(self) -> str:
        found = executable(self._ctx, self.provider_id)
        if found is None:
            raise ProbeError(f"{self.display} not found (no {self.provider_id} on PATH)")
        return found

    def _list(self) -> list[ListedHook]:
        raise NotImplementedError
