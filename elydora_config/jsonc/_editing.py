"""The editing half of :class:`._document.JsoncDocument`: what its edits write into the current text.

A :class:`JsoncWriter` belongs to one text of a document: it checks and renders new values in the style of the
text around the edit (:mod:`._layout`), plans the splices of an insertion or a removal (:mod:`._edit_plan`) and
re-validates what an edit touched (:mod:`._revalidate`). The document locates; the writer writes. Imported by
a document's first edit: a document that is only read (what ``status`` does) loads none of these modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._dialect import Dialect
from ._edit_plan import Plan, plan_insert, plan_remove
from ._layout import Style, check_value, infer_style, prefers_ascii, render, render_key, render_scalar
from ._revalidate import check_value_text, rebuilt_container

if TYPE_CHECKING:
    from ..errors import PathLike
    from ._edits import PathElement
    from ._fast_scan import ValueScanner
    from ._located import Container


class JsoncWriter:
    """The writer of ``text`` (a document's text between two edits), whose top-level value spans
    ``root_start``..``root_end``; ``path`` names the file in errors."""

    def __init__(self, text: str, root_start: int, root_end: int, dialect: Dialect, path: PathLike | None) -> None:
        self.text = text
        self.dialect = dialect
        self.path = path
        self._root = (root_start, root_end)
        self._multiline: bool | None = None
        self._ascii: bool | None = None

    @staticmethod
    def check(value: Any) -> None:
        """``TypeError`` / ``ValueError`` when ``value`` cannot be written as JSON (:func:`._layout.check_value`)."""
        check_value(value)

    @property
    def multiline(self) -> bool:
        """Whether the top-level value spreads over several lines (read once per text)."""
        if self._multiline is None:
            start, end = self._root
            self._multiline = self.text.find("\n", start, end) >= 0 or self.text.find("\r", start, end) >= 0
        return self._multiline

    @property
    def ascii(self) -> bool:
        """Whether the text writes non-ASCII characters as escapes (read once per text)."""
        if self._ascii is None:
            self._ascii = prefers_ascii(self.text)
        return self._ascii

    def style(self, chain: list[Container], near: int) -> Style:
        """The style of new text at offset ``near`` of the innermost of ``chain`` (whole containers, outermost
        first)."""
        return infer_style(self.text, chain, near, self.multiline, self.ascii)

    def value_text(self, value: Any, style: Style, base_indent: str, pretty: bool) -> str:
        """``value`` as JSON text in ``style``, its lines indented from ``base_indent``."""
        return render(value, style, base_indent, pretty)

    def scalar_text(self, value: Any) -> str:
        """A number, string, boolean or null as JSON text (of the style only the escaping matters)."""
        return render_scalar(value, self.ascii)

    def insertion(
        self, container: Container, index: int, key: PathElement | None, value: Any, style: Style, own_line: bool
    ) -> Plan:
        """The splices that make ``value`` member ``index`` of ``container``: under ``key`` in an object (``None``:
        an item of an array); ``own_line``: the container starts a line of its own."""

        def entry(base: str, pretty: bool) -> str:
            text = render(value, style, base, pretty)
            return text if key is None else render_key(str(key), style) + style.key_sep + text

        return plan_insert(self.text, container, index, entry, style, own_line)

    def removal(self, container: Container, index: int) -> Plan:
        """The splices that remove member ``index`` of ``container`` with what it owns (docs/editors.md)."""
        return plan_remove(self.text, container, index)

    def replaced_length(self, scanner: ValueScanner, new: str) -> int:
        """The length of ``new`` once checked to be exactly one JSON value of the dialect (``scanner``: this
        text's)."""
        return check_value_text(scanner, new, self.path)

    def rebuilt(self, plan: Plan, container: Container) -> tuple[Container, int]:
        """``container`` walked again, validating, after ``plan``; and the change of length."""
        return rebuilt_container(self.text, plan, container, self.dialect, self.path)
