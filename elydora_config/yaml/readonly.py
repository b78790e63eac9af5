"""Read-only YAML documents: the data of a text in the plain subset, decoded without PyYAML.

As :mod:`..toml.readonly` does for TOML: when the text is in the subset of :mod:`.plain` (what our installs
write, and many small configs), :class:`ReadOnlyYaml` answers ``value``, ``get``, ``has`` and ``text`` from that
data, and hands anything else (an edit) to the editor, :class:`.document.YamlDocument`, built on first use; any
other text is parsed by the editor at once, which reads the rest of YAML and reports errors with their line and
column.

Importing this module loads neither PyYAML nor the editor.
"""

from __future__ import annotations

from ..readonlydoc import ReadOnlyDocument
from ..typecheck import TYPE_CHECKING
from .plain import plain_loads

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ..errors import PathLike
    from .document import YamlDocument


def holds(container: Any, key: str | int) -> bool:
    """Whether ``container[key]`` names an element: a mapping's key, or a sequence's index (negative from the
    end)."""
    if isinstance(container, dict):
        return isinstance(key, str) and key in container
    return isinstance(container, list) and isinstance(key, int) and -len(container) <= key < len(container)


class ReadOnlyYaml(ReadOnlyDocument):
    """A YAML document's data (see :class:`~elydora_config.readonlydoc.ReadOnlyDocument`), with the editor,
    :class:`.document.YamlDocument`, built only when needed."""

    @classmethod
    def parse(cls, text: str, path: PathLike | None = None) -> ReadOnlyYaml:
        """``text`` as a read-only document: decoded by :func:`.plain.plain_loads` when it can be, else parsed by
        the editor now (which raises :class:`~elydora_config.errors.MalformedConfigError` for an invalid text,
        naming ``path``)."""

        def editor() -> YamlDocument:
            from .document import YamlDocument

            return YamlDocument.parse(text, path=path)

        value = plain_loads(text)
        if value is not None:
            return cls(text, value, editor)
        doc = cls(text, {}, editor)
        doc._editor = editor()
        return doc

    def _found(self, path: Sequence[str | int]) -> Any:
        current = self._data
        for depth, key in enumerate(path):
            if not holds(current, key):
                raise KeyError(tuple(path[: depth + 1]))
            current = current[key]
        return current
