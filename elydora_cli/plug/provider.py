"""The contract between the installer and an agent module: :class:`Provider`.

Every agent module (``elydora_cli/providers/<id>.py``) binds every name of :class:`Provider`, the optional
ones too (from :mod:`.defaults` when the agent needs nothing special), so that the installer reads
``module.install`` and never ``getattr(module, name, default)``; ``mypy --strict`` checks each module against
the protocol (``elydora_cli/providers/__init__.py``). The shapes it speaks in are in :mod:`.contract`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .. import catalog
from .context import Context
from .contract import Finding, Sources
from .defaults import Found
from .documents import Documents
from .layers import EnvSwitch


class Provider(Protocol):
    """What every agent module offers (module attributes; constants read-only)."""

    @property
    def FACTS(self) -> catalog.Provider:
        """The agent's catalog entry."""

    @property
    def ROLES(self) -> Mapping[str, str]:
        """Event name -> role (``guard`` or ``audit``) of the entries we install."""

    @property
    def NOTES(self) -> tuple[str, ...]:
        """What to tell the user after an install."""

    @property
    def ENV_SWITCHES(self) -> tuple[EnvSwitch, ...]:
        """The environment variables with which the agent runs none of our hooks (``status`` reports them)."""

    @property
    def HOOK_COMMAND_REFUSED(self) -> str | None:
        """Why ``--hook-command`` cannot apply to this agent (``None``: it can)."""

    def sources(self, ctx: Context, /) -> Sources:
        """The files the agent's hooks are written to, and the read-only files it consults."""

    def install(self, docs: Documents, ctx: Context, agent_id: str, /) -> None:
        """Edit the parsed documents so that the agent runs ``agent_id``'s entries (pure, no I/O)."""

    def uninstall(self, docs: Documents, ctx: Context, agent_ids: set[str] | None, /) -> None:
        """Remove the entries of ``agent_ids`` (``None``: of every agent)."""

    def check(self, docs: Documents, ctx: Context, agent_id: str, /) -> list[Finding]:
        """What ``status`` reports for ``agent_id`` (no finding: healthy)."""

    def extra_runtime(self, ctx: Context, agent_id: str, /) -> dict[str, tuple[bytes, int]]:
        """Files beside the generated runtime the agent needs, ``{name: (bytes, mode)}``."""

    def installed_entries(self, docs: Documents, ctx: Context, /) -> list[Found]:
        """Every entry of ours in the agent's files, read back (``verify`` runs them)."""

    def agent_argv(self, handler: Any, ctx: Context, /) -> list[str]:
        """What the agent's runner executes for one of its handlers on the context's system (``ctx.windows``:
        the Windows runner, :mod:`.runners`)."""
