"""Re-validation after an edit: only the text an edit wrote, or the container it changed, is scanned again."""

from __future__ import annotations

from ..errors import MalformedConfigError, PathLike
from ._dialect import Dialect
from ._edit_plan import Plan
from ._fast_scan import ValueScanner
from ._lexical import splice_text
from ._located import Container, Walker, shift


def check_value_text(scanner: ValueScanner, new: str, path: PathLike | None) -> int:
    """The length of ``new``, checked to be exactly one valid value (``scanner``: the document's).

    A container whose member value is replaced by one valid value, with every other byte unchanged
    (keys, separators, comments), is still valid: only the new value needs scanning.
    """
    try:
        end = scanner.validating(new, 0)[1]  # our own JSON: one C call, as a rule
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end == len(new):
        return end
    try:  # the scanner with its remedies and precise errors
        end = ValueScanner(new, scanner.dialect, path).end(0)
    except MalformedConfigError as exc:
        raise MalformedConfigError(path, f"internal error: edit would break the text ({exc.reason})") from exc
    if end != len(new):
        raise MalformedConfigError(path, "internal error: the new value is not one JSON value")
    return end


def rebuilt_container(
    old_text: str, plan: Plan, container: Container, dialect: Dialect, path: PathLike | None
) -> tuple[Container, int]:
    """The edited container walked again, validating, on its own new text; and the change of length.

    Members the splices did not touch keep their (shifted) spans and located children; everything
    outside the container is unchanged, so its new text alone is what needs validating.
    """
    begin = container.start
    local = splice_text(old_text[begin : container.end], [(s - begin, e - begin, new) for s, e, new in plan])
    delta = len(local) - (container.end - begin)
    known: dict[int, tuple[int, Container | None]] = {}
    for member in container.members:
        moved, touched = -begin, False
        for start, end, new in plan:
            if end <= member.start:
                moved += len(new) - (end - start)
            elif start < member.value_end:
                touched = True
        if not touched:
            known[member.value_start + moved] = (member.value_end + moved, member.node)
    scanner = ValueScanner(local, dialect, path)
    try:
        rebuilt = Walker(local, dialect, scanner, path).walk(0, validate=True, known=known)
    except MalformedConfigError as exc:
        raise MalformedConfigError(path, f"internal error: edit would break the text ({exc.reason})") from exc
    if rebuilt.end != len(local):
        raise MalformedConfigError(path, "internal error: edit changed text outside its container")
    for member in rebuilt.members:
        if member.node is not None and member.node.start != member.value_start:
            shift(member.node, 0, member.value_start - member.node.start)
    shift(rebuilt, 0, begin)
    return rebuilt, delta
