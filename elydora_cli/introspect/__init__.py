"""The agents' own introspection, asked when their executable is at hand (see :mod:`..plug.agentprobe`)."""

from __future__ import annotations

from ..plug.agentprobe import AgentProbe
from ..plug.context import Context
from . import codex, grok


def probe_for(provider_id: str, ctx: Context) -> AgentProbe | None:
    """The probe of ``provider_id`` (``None``: the agent offers no introspection we use)."""
    if provider_id == "codex":
        return codex.CodexProbe(ctx)
    if provider_id == "grok":
        return grok.GrokProbe(ctx)
    return None
