"""macOS preferences: the property lists behind ``CFPreferencesCopyAppValue``, read as files.

An agent that reads a key of its preference domain through ``CFPreferencesCopyAppValue`` (Codex's
``config_toml_base64`` and ``requirements_toml_base64``) gets the first value found in this order: the managed
(forced) preferences a device manager installed, for the user and then for the device; the user's own
preferences, for this host and then for any host; the machine's. The first two are root's; the user's own
are in the user's reach (``defaults write``), so ``status`` reads them too. ``cfprefsd`` caches what it
serves and writes its changes back with a delay, so a value written a moment ago may not be on disk yet.
Not verified on a Mac (no macOS machine here): tests stand in with files laid out the same way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from elydora_config.errors import MalformedConfigError

from . import layers
from .context import Context

if sys.platform != "win32":
    import pwd

MANAGED_PREFERENCES = "/Library/Managed Preferences"
"""Where a device manager installs forced preferences (``<domain>.plist``, and per user ``<user>/<domain>.plist``)."""
MACHINE_PREFERENCES = "/Library/Preferences"


def read(path: Path) -> dict[str, Any] | None:
    """A preferences file (binary or XML property list): its dictionary, ``{}`` when absent, ``None`` when it
    cannot be read or holds no dictionary."""
    import plistlib  # on first use: it loads datetime and expat, which no other status needs (architecture.md)

    try:
        with open(path, "rb") as stream:
            value = plistlib.load(stream)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, plistlib.InvalidFileException):
        return None
    return value if isinstance(value, dict) else None


def in_effect(ctx: Context) -> bool:
    """Whether the agents read macOS preferences here (macOS, and no Windows layout asked for)."""
    return layers.on_macos() and not ctx.windows


def search_list(ctx: Context, domain: str, user: str) -> list[Path]:
    """The files ``CFPreferencesCopyAppValue`` looks into for ``domain`` on behalf of ``user`` (whose home
    is ``ctx.home``), first first; every path placed below ``--root``."""
    managed = ctx.place(MANAGED_PREFERENCES)
    own = ctx.home / "Library" / "Preferences"
    by_host = sorted((own / "ByHost").glob(f"{domain}.*.plist"))
    return [
        managed / user / f"{domain}.plist",
        managed / f"{domain}.plist",
        *by_host,
        own / f"{domain}.plist",
        ctx.place(MACHINE_PREFERENCES) / f"{domain}.plist",
    ]


def app_value(ctx: Context, domain: str, key: str) -> tuple[Path, Any] | None:
    """``(file, value)`` of the first file of :func:`search_list` that holds ``key`` for the user running
    this process; ``None`` when none does. A file that cannot be read is an error naming it (the agent's
    answer cannot be known then)."""
    for path in search_list(ctx, domain, user_name()):
        found = read(path)
        if found is None:
            raise MalformedConfigError(path, "cannot be read as a property list")
        if key in found:
            return path, found[key]
    return None


def user_name() -> str:
    """The short name of the user running this process, from the password database (not the environment,
    which the agent sets)."""
    if sys.platform == "win32":
        raise OSError("Windows has no password database")
    else:
        return pwd.getpwuid(os.getuid()).pw_name


def users_own(ctx: Context, path: Path) -> bool:
    """Whether ``path`` is one of the user's own preferences (``defaults write`` changes it), not a file of
    the device manager's or the machine's."""
    return ctx.home / "Library" / "Preferences" in path.parents
