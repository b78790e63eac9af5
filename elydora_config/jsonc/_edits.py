"""``Edit`` and ``Splice``: the record of one edit of a :class:`.JsoncDocument`, able to redo and undo it."""

from __future__ import annotations

from ..records import record
from ._lexical import splice_text

PathElement = str | int


@record(frozen=True, slots=True)
class Splice:
    """``text[start:end]`` (which was ``old``) replaced by ``new``; offsets are in the text before the edit."""

    start: int
    end: int
    new: str
    old: str


@record(frozen=True)
class Edit:
    """One edit operation and the splices it made."""

    op: str  # "set", "insert" or "remove"
    path: tuple[PathElement, ...]
    splices: tuple[Splice, ...]

    def apply(self, text: str) -> str:
        """The text after this edit, given the text before it."""
        return splice_text(text, [(s.start, s.end, s.new) for s in self.splices])

    def revert(self, text: str) -> str:
        """The text before this edit, given the text after it."""
        pieces: list[str] = []
        prev = 0
        for splice, (start, end) in zip(self.splices, self.new_spans(), strict=True):
            pieces.append(text[prev:start])
            pieces.append(splice.old)
            prev = end
        pieces.append(text[prev:])
        return "".join(pieces)

    def new_spans(self) -> list[tuple[int, int]]:
        """Where each splice's new text lies in the text after the edit."""
        spans = []
        delta = 0
        for splice in self.splices:
            start = splice.start + delta
            spans.append((start, start + len(splice.new)))
            delta += len(splice.new) - (splice.end - splice.start)
        return spans
