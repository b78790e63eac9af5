"""Asking the agent itself: what an agent's own introspection reports about the hooks it loads.

The command layer builds a probe (``elydora_cli/introspect/``) when the agent's executable is at hand and
passes it in :attr:`~.context.Context.probe`; agent modules only read it, so they stay free of I/O of their own.
"""

from __future__ import annotations

from typing import Protocol

from elydora_config.records import record

FILE_LEVEL = "file-level"
AGENT = "agent"


class ProbeError(Exception):
    """The agent could not be asked (missing, timed out, answered nonsense): fall back to the file-level check."""


@record(frozen=True)
class ListedHook:
    """One hook as the agent lists it."""

    key: str
    """The agent's own name of the entry (Codex: ``<hooks.json>:<event>:<group>:<handler>``)."""
    current_hash: str
    """The agent's hash of the entry as it is now (never computed by us)."""
    trust: str
    """``trusted``, ``untrusted``, ``modified`` (or the agent's other word)."""
    enabled: bool
    event: str = ""
    """The agent's event name (compared by probes that list hooks by event and command)."""
    command: str = ""


class AgentProbe(Protocol):
    """An agent's introspection for one home."""

    @property
    def name(self) -> str:
        """What is asked, for messages (e.g. ``codex app-server``)."""

    @property
    def records_trust(self) -> bool:
        """Whether the agent gates hooks on a trust we can record with :meth:`hashes_for` (Codex)."""

    @property
    def compares_commands(self) -> bool:
        """Whether our entries are compared with the listing by event and command (``installer/agentcheck``);
        ``False``: the agent module compares them itself (Codex: keys and trust)."""

    @property
    def report(self) -> ProbeReport:
        """How the last check was made (the agent answered, or the file-level fallback and why)."""

    def available(self) -> bool:
        """Whether the agent's executable is at hand (it may still fail to answer)."""

    def listed(self) -> list[ListedHook]:
        """The hooks the agent loads from the user's files now; :class:`ProbeError` when it cannot say."""

    def hashes_for(self, hooks_text: str) -> dict[str, str]:
        """The agent's hash of each entry of a hooks file not yet written, by key suffix (``event:group:handler``)."""


@record
class ProbeReport:
    """How a check was made, for ``status --json`` (``check``) and the text output."""

    check: str = FILE_LEVEL
    note: str | None = None
