"""Names of :mod:`typing` that the code needs at run time, without importing :mod:`typing`.

Importing :mod:`typing` costs a read-only command (``elydora status``) some 3-4 ms, a quarter of the
interpreter's own start-up. The modules such a command runs use typing's names in annotations only (strings, with ``from
__future__ import annotations``), importing them inside ``if TYPE_CHECKING:``; this module gives that
condition and the two names that must exist at run time (``overload``, ``Protocol``). Type checkers take any
name ``TYPE_CHECKING`` as true and see :mod:`typing`'s own ``overload`` and ``Protocol``.
"""

from __future__ import annotations

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Protocol as Protocol
    from typing import overload as overload
else:
    def overload(function: object) -> object:
        """At run time a no-op: the variants are for type checkers only (they are not registered)."""
        return function

    class Protocol:
        """At run time a plain base class: a protocol's structural checks are for type checkers only."""

        __slots__ = ()

__all__ = ["TYPE_CHECKING", "Protocol", "overload"]
