"""What the C decoders refuse in every dialect: duplicate keys, ``NaN``/``Infinity``, raw control characters.

One home for these rules, shared by the editor's scanners (:mod:`.fast_scan`) and the read-only loader
(:mod:`~elydora_config.jsonc.readonly`). A refusal here is only a ``ValueError`` that stops the C decoder; the
precise report (line, column, the key repeated) is always the pure-Python reference scanner's.
"""

from __future__ import annotations

import json

from ..typecheck import TYPE_CHECKING

if TYPE_CHECKING:  # names for annotations only: a reader's start-up builds none of them
    from collections.abc import Callable
    from typing import Any, NoReturn

    ObjectHook = Callable[[list[tuple[str, Any]]], Any]
    """What ``json.JSONDecoder`` calls with each object's ``(key, value)`` pairs, in order."""


class DuplicateKey(ValueError):
    """An object names the same key twice (RFC 8259 names *should* be unique; every predefined dialect refuses)."""

    def __init__(self) -> None:
        super().__init__("duplicate key")


def check_pairs(pairs: list[tuple[str, Any]]) -> None:
    """Validate one object's pairs without building it: :class:`DuplicateKey` if a key repeats.

    Objects with fewer than two members cost one length test, those of two one comparison of their keys,
    the others one ``dict(pairs)`` in C. Returning ``None`` spares the decoder building the discarded dicts."""
    if len(pairs) > 1:
        if len(pairs) == 2:  # the most common size after 0: two keys compared without building a dict
            if pairs[0][0] == pairs[1][0]:
                raise DuplicateKey
        elif len(dict(pairs)) != len(pairs):
            raise DuplicateKey


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build one object from its pairs, refusing (:class:`DuplicateKey`) what :func:`check_pairs` refuses."""
    value = dict(pairs)
    if len(value) != len(pairs):
        raise DuplicateKey
    return value


def refuse_constant(name: str) -> NoReturn:
    """Refuse ``NaN``, ``Infinity`` and ``-Infinity``, which ``json`` would otherwise read as floats."""
    raise ValueError(f"{name} is not a JSON number")


def strict_decoder(hook: ObjectHook | None) -> json.JSONDecoder:
    """A decoder with every refusal above (``strict``: no raw control character inside a string), calling
    ``hook`` on each object (``None``: build plain dicts, the last occurrence of a key winning)."""
    return json.JSONDecoder(object_pairs_hook=hook, parse_constant=refuse_constant, strict=True)
