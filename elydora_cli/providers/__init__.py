"""Provider modules by id (imported on demand so that one agent's command never loads the others).

A provider is implemented when ``elydora_cli/providers/<id>.py`` exists for a catalog id.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .. import catalog


def implemented_ids() -> tuple[str, ...]:
    """Provider ids with an installer module, in catalog order."""
    return tuple(pid for pid in catalog.provider_ids() if importlib.util.find_spec(f"{__package__}.{pid}"))


def load(provider_id: str) -> ModuleType:
    catalog.provider(provider_id)  # UnknownProviderError for ids the catalog does not list
    if provider_id not in implemented_ids():
        raise catalog.UnknownProviderError(None, f"provider {provider_id!r} has no installer yet")
    return importlib.import_module(f"{__package__}.{provider_id}")
