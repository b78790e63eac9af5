"""Whole-file decodes per operation: the shapes read what they need through ``Document.get``/``has``.

A decode is one access to a document's ``value`` (the whole file as Python data). Validation needs the whole
file once; everything else reads the parts it walks. At most two decodes per file and operation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli import providers
from elydora_cli.installer import operations
from elydora_cli.plug.context import Context
from elydora_config.jsonc import JsoncDocument
from elydora_config.toml import TomlDocument

MAX_DECODES = 2


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    counts: Counter[str] = Counter()
    for cls in (JsoncDocument, TomlDocument):
        original: Callable[[Any], Any] = cls.value.fget  # type: ignore[attr-defined]

        def counted(self: Any, original: Callable[[Any], Any] = original) -> Any:
            counts[str(self._path)] += 1
            return original(self)

        monkeypatch.setattr(cls, "value", property(counted))
    yield counts


def _run(decodes: Counter[str], operation: Callable[[], object]) -> dict[str, int]:
    decodes.clear()
    operation()
    return dict(decodes)


@pytest.mark.parametrize("provider_id", providers.implemented_ids())
def test_at_most_two_whole_file_decodes_per_file_and_operation(
    provider_id: str, tmp_path: Path, decodes: Counter[str]
) -> None:
    ctx: Context = make_context(tmp_path)
    counts = {
        "install": _run(decodes, lambda: operations.install(provider_id, ctx)),
        "reinstall": _run(decodes, lambda: operations.install(provider_id, ctx)),
        "status": _run(decodes, lambda: operations.status(provider_id, ctx)),
        "uninstall": _run(decodes, lambda: operations.uninstall(provider_id, ctx)),
    }
    worst = {op: max(per_file.values(), default=0) for op, per_file in counts.items()}
    print("decodes", provider_id, worst)
    assert all(n <= MAX_DECODES for n in worst.values()), counts
