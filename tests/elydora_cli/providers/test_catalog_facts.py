"""The catalog is the source of each agent's env variable, default path, format and timeout unit: every agent
module is pinned to its catalog entry here (one parametrised test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from elydora_testkit.provider_cases import make_context

from elydora_cli import catalog, providers
from elydora_cli.plug.contract import Format
from elydora_cli.plug.hookmap import timeout_in

FORMATS = {
    "strict-json": {Format.JSON},
    "jsonc": {Format.JSONC, Format.JSONC_NO_TRAILING_COMMAS},
    "jsonc-trailing-commas": {Format.JSONC},
    "toml": {Format.TOML},
    "yaml": {Format.YAML},
    "hook-files": {Format.TEXT},
    "plugin-module": {Format.TEXT},
}


def _first(provider_id: str, ctx: object) -> tuple[Path, Format]:
    target = providers.load(provider_id).sources(ctx).targets[0]  # type: ignore[arg-type]
    return Path(target.path), target.fmt


def _expanded(default_path: str, home: Path) -> Path:
    return home / default_path.removeprefix("~/")


@pytest.mark.parametrize("provider_id", providers.implemented_ids())
def test_agent_module_follows_its_catalog_entry(provider_id: str, tmp_path: Path) -> None:
    facts = catalog.provider(provider_id).config
    module = providers.load(provider_id)
    ctx = make_context(tmp_path)
    path, fmt = _first(provider_id, ctx)
    default = _expanded(facts.default_path, ctx.home)
    assert (path.parent if facts.default_path.endswith("/") else path) == default.resolve() or path == default
    assert fmt in FORMATS[facts.format]
    if facts.env is not None:
        moved = ctx.repo_root / "elsewhere"  # a relative value is taken from the project (the agent's cwd)
        moved.mkdir()
        env_ctx = make_context(tmp_path, {facts.env: "elsewhere"}).with_options(rooted=False)
        assert moved in _first(provider_id, env_ctx)[0].parents, facts.env
    if facts.timeout is None:
        assert not hasattr(module, "HOOKS")  # Cline's hook files carry no timeout
    else:
        unit = module.HOOKS.unit if hasattr(module, "HOOKS") else "s"  # Kimi's tables: seconds
        assert unit == facts.timeout.unit
        assert timeout_in(ctx, unit) == facts.timeout.value
