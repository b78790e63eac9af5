"""The hook entries of ours an agent's config holds, read back, and how the agent runs each one.

``elydora verify`` (and the tests) run what is installed exactly as the agent would: the provider's
``installed_entries`` reads its entries back (most agents bind :func:`~..plug.defaults.entries_in` over their
hook maps; Kimi's ``[[hooks]]`` tables and Cline's hook files read their own), and its ``agent_argv`` says how
the agent runs each one on the system it runs on (the exec form, else the agent's shell, :mod:`..plug.runners`;
Copilot's ``bash`` or ``powershell`` field, Qwen's ``shell``, Codex's ``commandWindows``, Cline's ``node`` file).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import record

from ..plug.context import Context
from ..plug.documents import Documents
from ..plug.ownership import Ref

if TYPE_CHECKING:
    from typing import Any

    from ..plug.provider import Provider


@record(frozen=True)
class Entry:
    source: Path
    """The config file (or hook file) the entry is in."""
    event: str
    role: str
    """``guard`` or ``audit``: from the event (the catalog's pre-tool event guards), or from the entry itself
    for an agent that runs both on its one pre-tool event (Crush)."""
    ref: Ref
    handler: Any
    argv: list[str]
    """What the agent executes for it."""
    timeout: float | None
    """The agent's timeout for it in seconds (``None``: the agent sets none)."""


def installed(provider: Provider, docs: Documents, ctx: Context, agent_id: str | None = None) -> list[Entry]:
    """Every entry of ours (of ``agent_id`` only, when given) with the argv and timeout the agent uses."""
    roles = provider.ROLES
    shared = provider.FACTS.events.records_intent  # guard and audit on one event (Crush): the entry's own role
    return [
        Entry(f.source, f.event, f.ref.role if shared else roles[f.event], f.ref, f.handler,
              provider.agent_argv(f.handler, ctx), f.timeout)
        for f in provider.installed_entries(docs, ctx)
        if f.event in roles and (agent_id is None or f.ref.agent_id == agent_id)
    ]
