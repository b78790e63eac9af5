"""The shapes every provider module shares: sources, documents, findings.

A provider module (``elydora_cli/providers/<id>.py``) defines:

* ``FACTS``: its catalog entry;
* ``sources(ctx) -> Sources``: the files it writes and the read-only files it consults;
* ``install(docs, ctx)`` / ``uninstall(docs, ctx)``: pure edits of the parsed documents;
* ``check(docs, ctx) -> list[Finding]``: what ``status`` reports (no finding = healthy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

MIB = 1024 * 1024


class Format(str, Enum):
    JSON = "json"
    JSONC = "jsonc"
    JSONC_NO_TRAILING_COMMAS = "jsonc-no-trailing-commas"
    TOML = "toml"
    TEXT = "text"


@dataclass(frozen=True)
class Target:
    """A file the provider may write (created from ``new_text`` when absent)."""

    path: Path
    fmt: Format
    new_text: str = "{}\n"
    max_bytes: int = 2 * MIB
    mode: int | None = None
    """Mode of a file we create (``None``: 0600); an existing file keeps its mode."""


@dataclass
class Sources:
    targets: list[Target]
    depends: list[Path] = field(default_factory=list)
    """Read-only sources: snapshot preconditions of the transaction, never written."""
    depend_formats: dict[Path, Format] = field(default_factory=dict)


class Document(Protocol):
    """What providers need of an editor document (JsoncDocument and TomlDocument both fit)."""

    @property
    def value(self) -> Any: ...

    @property
    def text(self) -> str: ...

    def set(self, path: Sequence[str | int], value: Any) -> object: ...

    def insert(self, path: Sequence[str | int], index: int, value: Any) -> object: ...

    def remove(self, path: Sequence[str | int]) -> object: ...


@dataclass
class Finding:
    """One problem (or note) ``status`` reports for a provider."""

    message: str
    path: Path | None = None
    severity: str = "error"
    """``error``: broken; ``pending``: correct but waiting for the user to approve it in the agent (the agent
    does not run it yet); ``note``: information only. Both ``error`` and ``pending`` make status unhealthy."""

    def render(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message
