"""Before/after pairs (fixtures/configs) of droid (see provider_cases.Case).

The after-files of ``~/.factory/hooks.json`` (``droid-after.jsonc``, ``droid-fresh-after.jsonc``) keep the shape
the Elydora Python SDK's installer writes: our groups under a ``hooks`` key. Factory Droid 0.225.2 reads
``hooks.json`` as a bare event map and ignores that key, so those entries never run (docs/e2e.md, finding 1).
We write our groups at the file's root instead: :func:`bare_map` moves the after-file's Elydora groups out of
its wrapper to the root, after the keys the file already had, and leaves the user's groups where they were (a
wrapper that ends up empty is not written). The settings.json pair keeps ``hooks``: Droid reads settings
files' hooks under that key.
"""

import json
from typing import Any

from elydora_testkit.provider_cases import REF_MARK, Case


def bare_map(reference: dict[str, Any]) -> dict[str, Any]:
    """The hooks.json after-value with its Elydora groups at the root instead of under ``hooks``."""
    wrapper: dict[str, list[Any]] = {}
    ours: dict[str, list[Any]] = {}
    for event, groups in reference["hooks"].items():
        for group in groups:
            side = ours if REF_MARK in json.dumps(group) else wrapper
            side.setdefault(event, []).append(group)
    rest = {key: value for key, value in reference.items() if key != "hooks" or wrapper}
    if wrapper:
        rest["hooks"] = wrapper
    return {**rest, **ours}


CASES = [
    Case("droid", "droid-before.jsonc", "droid-after.jsonc", deviation=bare_map),
    Case("droid", "droid-settings-before.jsonc", "droid-settings-after.jsonc", target=".factory/settings.json"),
    Case(
        "droid", "droid-nested-legacy-before.json", "droid-nested-legacy-after.json", target=".factory/hooks/hooks.json"
    ),
    Case("droid", None, "droid-fresh-after.jsonc", deviation=bare_map),
]
