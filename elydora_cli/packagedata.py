"""The package's own data files (``catalog.json``, ``verify_payloads.json``, the runtime templates), read
from beside this module.

A wheel installs them as ordinary files next to the code, so a path from ``__file__`` finds them;
:mod:`importlib.resources` would find them too, but importing it brings :mod:`tempfile`, :mod:`shutil`,
:mod:`zipfile` and the compression modules, a large part of a read-only command's start-up.
"""

from __future__ import annotations

import os

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = "runtime/templates"
"""The folder of the standalone runtime templates, relative to the package."""


def path(relative: str) -> str:
    """The absolute path of the package file ``relative`` (``/``-separated)."""
    return os.path.join(PACKAGE_DIR, *relative.split("/"))


def template_path(name: str) -> str:
    """The absolute path of the runtime template ``name``."""
    return path(f"{TEMPLATES}/{name}")


def read_text(relative: str) -> str:
    """The package file ``relative`` as UTF-8 text."""
    with open(path(relative), encoding="utf-8") as stream:
        return stream.read()


def read_template(name: str) -> str:
    """The runtime template ``name`` as UTF-8 text."""
    return read_text(f"{TEMPLATES}/{name}")
