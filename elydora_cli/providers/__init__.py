"""The agent modules, one per catalog id, and their registry (imported on demand so that one agent's command
never loads the others).

A provider is implemented when ``elydora_cli/providers/<id>.py`` exists for a catalog id; every such module
satisfies :class:`~elydora_cli.plug.contract.Provider` (``mypy --strict`` checks it below).
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import TYPE_CHECKING

from .. import catalog

if TYPE_CHECKING:  # every agent module against the contract: a misspelt or missing name fails type checking
    from ..plug.provider import Provider
    from . import (
        augment,
        claudecode,
        cline,
        codex,
        copilot,
        crush,
        cursor,
        droid,
        gemini,
        grok,
        hermes,
        kilo,
        kimi,
        kiroagent,
        kirocli,
        kiroide,
        letta,
        opencode,
        openhands,
        pi,
        qoder,
        qwen,
    )

    CHECKED: tuple[Provider, ...] = (
        augment, claudecode, cline, codex, copilot, cursor, droid, gemini, grok, kimi, letta, qwen,
        kirocli, kiroide, kiroagent,
        qoder, openhands, crush,
        opencode, kilo, pi, hermes,
    )  # fmt: skip


@functools.cache
def implemented_ids() -> tuple[str, ...]:
    """Provider ids with an installer module, in catalog order (looked up once per process: ``status`` asks
    for every provider it checks)."""
    try:  # one listing of this package's folder instead of a module search per id (and no importlib.util)
        modules = {name.rpartition(".")[0] for name in os.listdir(os.path.dirname(__file__)) if name.endswith(".py")}
    except OSError:  # not a folder (a zip archive): ask the import system
        import importlib.util

        return tuple(pid for pid in catalog.provider_ids() if importlib.util.find_spec(f"{__package__}.{pid}"))
    return tuple(pid for pid in catalog.provider_ids() if pid in modules)


def load(provider_id: str) -> Provider:
    catalog.provider(provider_id)  # UnknownProviderError for ids the catalog does not list
    if provider_id not in implemented_ids():
        raise catalog.UnknownProviderError(None, f"provider {provider_id!r} has no installer yet")
    module: Provider = importlib.import_module(f"{__package__}.{provider_id}")  # checked against it above
    return module
