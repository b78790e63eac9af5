"""The parsed files one provider operation works on, and what it decided to write or delete."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elydora_config.errors import MalformedConfigError

from .contract import Document, Format, Target
from .hookmap import EditLog


def parse(text: str, fmt: Format, path: Path) -> Document:
    """Parse ``text`` with the editor and dialect ``fmt`` names (errors name ``path``, line and column)."""
    if fmt is Format.TOML:
        from elydora_config.toml import TomlDocument

        return TomlDocument.parse(text, path=path)
    from elydora_config.jsonc import JSONC, JSONC_NO_TRAILING_COMMAS, STRICT_JSON, JsoncDocument

    dialect = {Format.JSON: STRICT_JSON, Format.JSONC: JSONC, Format.JSONC_NO_TRAILING_COMMAS: JSONC_NO_TRAILING_COMMAS}
    if fmt not in dialect:
        raise ValueError(f"{fmt} files are not parsed as documents")
    doc = JsoncDocument.parse(text, dialect[fmt], path=path)
    if not isinstance(doc.value, dict):
        raise MalformedConfigError(path, "the top level must be a JSON object")
    return doc


@dataclass
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
        return parse(target.new_text, target.fmt, path).value

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
        if original is not None and _same_data(original, doc, self.targets[path], path):
            return original
        return doc.text


def _same_data(original: str, doc: Document, target: Target, path: Path) -> bool:
    """Keep the original bytes when an edit round came back to the same data (install twice = once)."""
    if original == doc.text:
        return True
    try:
        before = parse(original, target.fmt, path).value
    except MalformedConfigError:
        return False
    return bool(before == doc.value) and _same_types(before, doc.value)


def _same_types(a: Any, b: Any) -> bool:
    """``==`` says ``1 == 1.0 == True``; configs care about the difference."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True
