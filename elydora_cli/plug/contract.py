"""The shapes the installer and the agent modules speak in (:mod:`.provider` is the contract itself): the
formats of the agents' files, a file to edit or consult (:class:`Target`, :class:`Sources`), a parsed file
(:class:`Document`) and what ``status`` reports (:class:`Finding`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from elydora_config.records import field, record

if TYPE_CHECKING:
    from typing import Any

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
