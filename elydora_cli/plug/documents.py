"""The parsed files one provider operation works on, and what it decided to write or delete."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config import jsonc
from elydora_config._plaindata import same_types
from elydora_config.errors import MalformedConfigError
from elydora_config.nesting import check_nesting
from elydora_config.records import field, record
from elydora_config.toml import TomlDocument

from .contract import Document, Format, Target
from .hookmap import EditLog, FileEdit

if TYPE_CHECKING:
    from typing import Any

_UNSET: Any = object()


class Tracked:
    """A parsed document whose whole value is decoded at most once between two edits.

    The shapes read parts through :meth:`get`; whole-file readers (validation, the final comparison) share
    one decode, and the value decoded before the first edit is kept as :attr:`original` (the file as read).
    The value returned is shared: callers read it, they never change it.
    """

    def __init__(self, doc: Document) -> None:
        self._doc = doc
        self._value: Any = _UNSET
        self._edited = False
        self.original: Any = _UNSET

    @property
    def value(self) -> Any:
        if self._value is _UNSET:
            self._value = self._doc.value
            if not self._edited:
                self.original = self._value
        return self._value

    @property
    def text(self) -> str:
        return self._doc.text

    def get(self, path: Sequence[str | int], default: Any = _UNSET, /) -> Any:
        if default is _UNSET:
            return self._doc.get(path)
        return self._doc.get(path, default)

    def has(self, path: Sequence[str | int], /) -> bool:
        return self._doc.has(path)

    def _edit(self) -> None:
        self._value = _UNSET
        self._edited = True

    def set(self, path: Sequence[str | int], value: Any) -> object:
        self._edit()
        return self._doc.set(path, value)

    def insert(self, path: Sequence[str | int], index: int, value: Any) -> object:
        self._edit()
        return self._doc.insert(path, index, value)

    def remove(self, path: Sequence[str | int]) -> object:
        self._edit()
        return self._doc.remove(path)

    def __getattr__(self, name: str) -> Any:
        """Any other method of the editor (TOML's ``append_table``...): counted as an edit when called."""
        attribute = getattr(self._doc, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            self._edit()
            return attribute(*args, **kwargs)

        return call


def parse(text: str, fmt: Format, path: Path) -> Tracked:
    """Parse ``text`` with the editor and dialect ``fmt`` names (errors name ``path``, line and column)."""
    doc = Tracked(_parse(text, fmt, path))
    if fmt in _DIALECTS and not isinstance(doc.value, dict):  # this decode is the one validation reuses
        raise MalformedConfigError(path, "the top level must be a JSON object")
    return doc


@functools.lru_cache(maxsize=64)
def _fresh_value(text: str, fmt: Format) -> Any:
    """The data of a template text (``Target.new_text``): decoded once per process, not a file of the user's."""
    return _parse(text, fmt, None).value


_DIALECTS = {
    Format.JSON: "STRICT_JSON",
    Format.JSONC: "JSONC",
    Format.JSONC_NO_TRAILING_COMMAS: "JSONC_NO_TRAILING_COMMAS",
}
"""The JSON formats, by the name of their dialect in :mod:`elydora_config.jsonc`."""


def _parse(text: str, fmt: Format, path: Path | None) -> Document:
    if fmt is Format.TOML:
        return TomlDocument.parse(text, path=path)
    if fmt is Format.YAML:  # PyYAML is loaded by the first YAML file (one agent's settings are YAML)
        from elydora_config.yaml import YamlDocument

        return YamlDocument.parse(text, path=path)
    if fmt not in _DIALECTS:
        raise ValueError(f"{fmt} files are not parsed as documents")
    check_nesting(text, path)
    return _jsonc(text, fmt, path)


def _jsonc(text: str, fmt: Format, path: Path | None) -> Document:
    return jsonc.JsoncDocument.parse(text, getattr(jsonc, _DIALECTS[fmt]), path=path)


@record
class Documents:
    """Targets (editable) and read-only sources of one provider operation."""

    targets: dict[Path, Target]
    docs: dict[Path, Document | None]
    originals: dict[Path, str | None]
    depends: dict[Path, Any] = field(default_factory=dict)
    """Read-only sources: parsed documents, raw text, or ``None`` when absent."""
    deleted: set[Path] = field(default_factory=set)
    logs: dict[Path, EditLog] = field(default_factory=dict)
    recorded: list[Any] = field(default_factory=list)
    """Every handler value an earlier install recorded in a manifest (ownership by record)."""
    created: dict[Path, list[list[str | int]]] = field(default_factory=dict)
    """Containers an earlier install created, per file (removed again when they end up empty)."""
    created_files: set[Path] = field(default_factory=set)
    texts: dict[Path, str] = field(default_factory=dict)
    """New content of plain-text targets (``Format.TEXT``: script files an agent loads)."""
    blanks: dict[Path, str] = field(default_factory=dict)
    """Targets that were blank (whitespace only) when an install first read them, read as the target's
    ``new_text`` (``Sources.blank_is_empty``): the blank text, which comes back once the file holds nothing else."""
    _original_values: dict[Path, Any] = field(default_factory=dict)

    def doc(self, path: Path) -> Document | None:
        return None if path in self.deleted else self.docs.get(path)

    def ensure(self, path: Path) -> Document:
        """The document at ``path``, created from the target's ``new_text`` when the file is absent."""
        self.deleted.discard(path)
        current = self.docs.get(path)
        if current is None:
            target = self.targets[path]
            current = parse(target.new_text, target.fmt, path)
            self.docs[path] = current
            if self.originals.get(path) is None:
                self.created_files.add(path)
        return current

    def fresh_value(self, path: Path) -> Any:
        """The data of a file we would create from scratch (before our entries are added)."""
        target = self.targets[path]
        return _fresh_value(target.new_text, target.fmt)

    def original_value(self, path: Path) -> Any:
        """The data of a target as it was read (``None``: absent), decoded at most once per operation."""
        original = self.originals.get(path)
        if original is None:
            return None
        doc = self.docs.get(path)
        if isinstance(doc, Tracked) and doc.original is not _UNSET:
            return doc.original
        if path not in self._original_values:
            self._original_values[path] = _parse(original, self.targets[path].fmt, path).value
        return self._original_values[path]

    def delete(self, path: Path) -> None:
        self.deleted.add(path)

    def set_text(self, path: Path, text: str) -> None:
        """Replace a plain-text target's whole content."""
        self.deleted.discard(path)
        self.texts[path] = text
        if self.originals.get(path) is None:
            self.created_files.add(path)

    def log(self, path: Path) -> EditLog:
        return self.logs.setdefault(path, EditLog())

    def edit(self, path: Path, doc: Document) -> FileEdit:
        """The edit handle of ``doc`` (the document at ``path``) for the shapes: log, records, created containers."""
        return FileEdit(doc, self.log(path), self.recorded, self.created.get(path))

    def was_created_by_us(self, path: Path) -> bool:
        return path in self.created_files

    def final_text(self, path: Path) -> str | None:
        """What the file should contain after the operation (``None``: absent)."""
        if path in self.deleted:
            return None
        if path in self.texts:
            return self.texts[path]
        doc = self.docs.get(path)
        if doc is None:
            return self.originals.get(path)
        original = self.originals.get(path)
        if original is not None and _same_data(original, doc, self, path):
            return original
        blank = self.blanks.get(path)
        if blank is not None and _fresh(doc, self.fresh_value(path)):
            return blank
        return doc.text


def _fresh(doc: Document, fresh: Any) -> bool:
    """Whether ``doc`` holds exactly what a new file of its target starts as."""
    return bool(doc.value == fresh) and same_types(doc.value, fresh)


def _same_data(original: str, doc: Document, docs: Documents, path: Path) -> bool:
    """Keep the original bytes when an edit round came back to the same data (install twice = once)."""
    if original == doc.text:
        return True
    try:
        before = docs.original_value(path)
    except MalformedConfigError:
        return False
    return bool(before == doc.value) and same_types(before, doc.value)

