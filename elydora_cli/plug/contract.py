"""The contract between the installer and an agent module: :class:`Provider`, and the shapes it speaks in.

Every agent module (``elydora_cli/providers/<id>.py``) binds every name of :class:`Provider`, the optional
ones too (from :mod:`.defaults` when the agent needs nothing special), so that the installer reads
``module.install`` and never ``getattr(module, name, default)``; ``mypy --strict`` checks each module against
the protocol (``elydora_cli/providers/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from elydora_config.records import field, record

if TYPE_CHECKING:
    from typing import Any

    from .. import catalog
    from .context import Context
    from .defaults import Found
    from .documents import Documents
    from .layers import EnvSwitch

MIB = 1024 * 1024


class Format(str, Enum):
    JSON = "json"
    JSONC = "jsonc"
    JSONC_NO_TRAILING_COMMAS = "jsonc-no-trailing-commas"
    TOML = "toml"
    YAML = "yaml"
    TEXT = "text"


@record(frozen=True)
class Target:
    """A file the provider may write (created from ``new_text`` when absent)."""

    path: Path
    fmt: Format
    new_text: str = "{}\n"
    max_bytes: int = 2 * MIB
    mode: int | None = None
    """Mode of a file we create (``None``: 0600); an existing file keeps its mode."""


@record
class Sources:
    targets: list[Target]
    depends: list[Path] = field(default_factory=list)
    """Read-only sources: snapshot preconditions of the transaction, never written."""
    depend_formats: dict[Path, Format] = field(default_factory=dict)
    blank_is_empty: bool = False
    """The agent reads a JSON file of these sources that is empty or holds only whitespace as an empty object
    (Claude Code, Auggie, Letta Code, Hermes Agent's allowlist): install fills it. ``False``: the agent refuses
    one (Gemini CLI, Qwen Code, Codex, Droid, Qoder, OpenHands) or what it does is not known, and so we refuse it,
    naming the file and saying what to write in it. (A TOML or YAML file holding nothing, or only comments, is an
    empty table or mapping for every reader: always accepted. A JSON file of comments only is always refused: a
    strict-JSON agent cannot read a comment, so our hooks written below it would be ignored (Letta Code and
    Hermes would fall back to their defaults), and the JSONC agents here refuse it too.) Each agent's behaviour
    is in docs/providers.md."""


class Document(Protocol):
    """What providers need of an editor document (JsoncDocument, TomlDocument and YamlDocument fit)."""

    @property
    def value(self) -> Any: ...

    @property
    def text(self) -> str: ...

    def get(self, path: Sequence[str | int], default: Any = ..., /) -> Any:
        """The value at ``path`` (only that part is decoded); ``default`` when there is none."""

    def has(self, path: Sequence[str | int], /) -> bool: ...

    def set(self, path: Sequence[str | int], value: Any) -> object: ...

    def insert(self, path: Sequence[str | int], index: int, value: Any) -> object: ...

    def remove(self, path: Sequence[str | int]) -> object: ...


@record
class Finding:
    """One problem (or note) ``status`` reports for a provider."""

    message: str
    path: Path | None = None
    severity: str = "error"
    """``error``: broken; ``pending``: correct but waiting for the user to approve it in the agent (the agent
    does not run it yet); ``off``: correct, but a setting or variable the agent reads switches our hooks off
    (:mod:`.layers`); ``note``: information only. Each but ``note`` makes status unhealthy."""

    def render(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


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
