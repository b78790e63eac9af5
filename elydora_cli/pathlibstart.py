"""Import :mod:`pathlib` without loading :mod:`urllib.parse` (and the :mod:`ipaddress` it imports) with it.

pathlib imports ``urllib.parse`` at its top for one function, ``quote_from_bytes``, which only ``as_uri()``
calls. Loading the two modules costs every ``elydora`` command about 3 ms of start-up, a third of the
interpreter's own, and no command but one talking to a server uses them. :func:`import_pathlib` imports
pathlib while a stand-in module holds the name ``urllib.parse``: pathlib binds a function that imports the real
``quote_from_bytes`` on its first call, and the stand-in is gone from :data:`sys.modules` before anything else
is imported, so a later ``import urllib.parse`` loads the real module. Any other name asked of the stand-in
(a pathlib of another version) is read from the real module, loaded then: the result is the same, only not
cheaper. The command line calls it before it imports a command's module (:func:`elydora_cli.main.build_parser`);
the runtime's own processes (the flusher) import neither.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

NAME = "urllib.parse"


def quote_from_bytes(*args: Any, **kwargs: Any) -> str:
    """:func:`urllib.parse.quote_from_bytes`, imported on the first call."""
    from urllib.parse import quote_from_bytes as real

    return real(*args, **kwargs)


class _StandIn(ModuleType):
    """``urllib.parse`` while pathlib is imported: :func:`quote_from_bytes`, and the real module for the rest."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (``__path__``): not a package
            raise AttributeError(name)
        if sys.modules.get(NAME) is self:
            del sys.modules[NAME]
        import importlib

        return getattr(importlib.import_module(NAME), name)


def import_pathlib() -> None:
    """Import pathlib (see the module); nothing changes when pathlib or ``urllib.parse`` is already loaded."""
    if "pathlib" in sys.modules or NAME in sys.modules:
        return
    stand_in = _StandIn(NAME)
    stand_in.quote_from_bytes = quote_from_bytes  # type: ignore[attr-defined]
    sys.modules[NAME] = stand_in
    try:
        import pathlib  # noqa: F401
    finally:
        if sys.modules.get(NAME) is stand_in:
            del sys.modules[NAME]
