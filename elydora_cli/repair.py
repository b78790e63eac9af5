"""Drift repair: install again what the manifests say is installed, and log what that restored.

An agent that rewrites its settings, or a user who deletes our entries, leaves a manifest behind that still
says the agent is installed. :func:`repair` runs the install of each such agent with the options its manifest
remembers (interpreter, timeout, hook command): install is idempotent, so an intact agent changes no byte, and
a damaged one gets back exactly what the install writes. An agent that was uninstalled has no manifest and is
left alone. The command appends each run to the repair log, which ``status`` shows with the timer
(:mod:`.repairlog`, :mod:`.repairtimer`).
"""

from __future__ import annotations

import datetime
import os
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError
from elydora_config.records import field, record

from .exitcodes import describe_error
from .installer import operations
from .installer.manifest import MANIFEST_NAME
from .plug.context import Context

if TYPE_CHECKING:
    from typing import Any


@record
class Repaired:
    """One run: what it restored (files per agent id) and what it could not (error per agent id)."""

    at: str
    restored: dict[str, list[str]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    checked: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"at": self.at, "checked": self.checked, "restored": self.restored, "errors": self.errors}


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def repair(ctx: Context, providers: list[str] | None = None, *, dry_run: bool = False) -> tuple[Repaired, str]:
    """Install again every installed agent (of ``providers``, when given); the run and the dry run's diff."""
    run, diff = Repaired(_now()), []
    for manifest in operations.installed_manifests(ctx):
        if providers is not None and manifest.provider not in providers:
            continue
        run.checked.append(manifest.agent_id)
        agent_ctx = ctx.with_options(
            python=manifest.python, timeout_seconds=manifest.timeout_seconds, hook_command=manifest.hook_command,
            agent_id=None if manifest.agent_id == manifest.provider else manifest.agent_id,
        )
        try:
            outcome = operations.install(manifest.provider, agent_ctx, dry_run=dry_run)
        except (ConfigError, OSError) as exc:
            run.errors[manifest.agent_id] = describe_error(exc)
            continue
        changed = [p for p in outcome.changed if not _ours_only(p, ctx)]
        if changed:
            run.restored[manifest.agent_id] = changed
        if outcome.preview is not None:
            diff.append(outcome.preview.text(outcome.provider, full=False))
    return run, "".join(diff)


def _ours_only(path: str, ctx: Context) -> bool:
    """The manifest an install rewrites is bookkeeping, not something an agent or user removed."""
    return path.startswith(str(ctx.elydora_dir) + os.sep) and path.endswith(MANIFEST_NAME)
