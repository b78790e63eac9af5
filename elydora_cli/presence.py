"""Whether an agent is present on this machine: its config directory or one of its executables exists.

``elydora install --all`` installs only into present agents (``--every`` installs into all). The config
directory is the first directory of the catalog's default path below the settings root (``~/.claude``),
or the directory the agent's environment variable names; on Windows, for the agents that keep their folder among
the local application data (Crush, Hermes), that folder, where the agent's plug places its settings. The
executables are the catalog's, looked up on ``PATH``.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from elydora_config.errors import ConfigError

from . import catalog
from .executables import which
from .plug.context import Context
from .providers import load

XDG_CONFIG_HOME = "XDG_CONFIG_HOME"


def config_dir(provider: str, ctx: Context) -> Path:
    """The agent's own directory below the settings root (``$VAR`` when the agent's variable is set)."""
    facts = catalog.provider(provider).config
    local = _local_app_data_folder(provider, ctx) if ctx.windows else None
    if local is not None:
        return local
    if facts.env and facts.env not in ("HOME", XDG_CONFIG_HOME):
        chosen = ctx.env_dir(facts.env)
        if chosen is not None:
            return chosen
    parts = PurePosixPath(facts.default_path).parts
    if parts[:2] == ("~", ".config") and len(parts) > 2:  # an XDG application: its own folder, not ~/.config
        return (ctx.env_dir(XDG_CONFIG_HOME) or ctx.home / ".config") / parts[2]
    return ctx.home / parts[1] if parts and parts[0] == "~" and len(parts) > 1 else ctx.home


def _local_app_data_folder(provider: str, ctx: Context) -> Path | None:
    """The agent's own folder below ``%LOCALAPPDATA%`` when its plug places its settings file there, else
    ``None`` (the variable the agent honours, or ``XDG_CONFIG_HOME``, moved it elsewhere; or the agent keeps
    its folder in the home, as most do)."""
    base = ctx.local_app_data()
    try:
        targets = load(provider).sources(ctx).targets
    except ConfigError:  # a variable of the agent's names no usable place: the catalog's rule decides presence
        return None
    for target in targets:
        if target.path.is_relative_to(base):
            return base / target.path.relative_to(base).parts[0]
    return None


def absence(provider: str, ctx: Context) -> str | None:
    """``None`` when the agent is present, else why it counts as absent (for the "skipped" line)."""
    if catalog.provider(provider).on_request:
        return "installed only on request: name it to install it"
    directory = config_dir(provider, ctx)
    if directory.is_dir():
        return None
    names = catalog.provider(provider).executables
    search = ctx.env.get("PATH", os.defpath)
    if any(which(name, path=search) for name in names):
        return None
    on_path = " or ".join(f"`{name}`" for name in names) or "its executable"
    return f"not found: no {directory} and no {on_path} on PATH (name it, or use --every, to install anyway)"
