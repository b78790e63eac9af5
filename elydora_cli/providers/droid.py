"""Factory Droid: JSONC hooks (trailing commas allowed) in the one active user source under ``~/.factory``.

Droid loads user hooks from the first of ``hooks.json``, the legacy ``hooks/hooks.json`` (either
``{"hooks": {...}}`` or a bare event map), ``settings.local.json`` with a ``hooks`` key and ``settings.json``
with a ``hooks`` key. Our groups go into that active source only; our entries in the other user sources are
removed. ``hooksDisabled`` is read from the system-managed file, the project's ``.factory`` folders and the
user files (see :func:`blocked`); every file consulted is a snapshot precondition of the transaction.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from .. import catalog
from . import hookmap
from .base import Finding, Format, Sources, Target
from .cmdforms import powershell_call
from .common import add_hooks, catalog_events, check_hooks, refuse_if, remove_hooks, shell_command
from .context import Context
from .documents import Documents
from .hookmap import HookMap
from .jsregex import group_patterns, require_compilable
from .layers import Layer, explicit, first_explicit, layer, layers, system_file
from .ownership import Ref, runtime_argv
from .pairforms import OldShape, exactly, recogniser
from .schema import BOOL, NONEMPTY_STR, POS_NUMBER, STR, HandlerSchema, MapSchema, validate_hookmap

FACTS = catalog.provider("droid")
HOOKS_JSON, NESTED, LOCAL, SETTINGS = "hooks.json", "hooks/hooks.json", "settings.local.json", "settings.json"
USER_SOURCES = (HOOKS_JSON, NESTED, LOCAL, SETTINGS)
"""In the order Droid picks the active one (the first two when the file exists, the others when it has ``hooks``)."""
SWITCHES = {"hooksDisabled": BOOL, "showHookOutput": BOOL}
"""Root keys of a bare legacy event map that are settings, not events."""
HANDLERS = HandlerSchema(
    by_type={"command": {"command": NONEMPTY_STR}},
    common={"timeout": POS_NUMBER},
    required={"command": ["command"]},
    open_keys=True,
)
SCHEMA = MapSchema(HANDLERS, group={"matcher": STR, "commandRegex": STR}, open_group_keys=True)
BARE_SCHEMA = dataclasses.replace(SCHEMA, container=(), switches=SWITCHES)
MANAGED = {
    "posix": "/etc/factory/settings.json",
    "macos": "/Library/Application Support/Factory/settings.json",
    "windows": "%ProgramFiles%\\Factory\\settings.json",
}


REFERENCE = OldShape(
    frozenset({"type", "command", "timeout"}),
    "command",
    ("posix", "call", "dquoted"),  # the reference installer's POSIX, PowerShell and older Windows forms
    checks={"type": exactly("command"), "timeout": exactly(10)},
)


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    command = powershell_call(runtime_argv(ref, ctx)) if ctx.windows else shell_command(ref, ctx)
    return {"type": "command", "command": command, "timeout": ref.timeout}


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    group={"matcher": "*"},
    legacy=recogniser(REFERENCE),
)
BARE_HOOKS = dataclasses.replace(HOOKS, container=())


def factory_dir(ctx: Context) -> Path:
    return ctx.home / ".factory"


def managed_settings(ctx: Context) -> Path:
    return system_file(ctx, **MANAGED)


def git_root(cwd: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.git`` (a folder or a file), else ``cwd`` itself."""
    return next((folder for folder in (cwd, *cwd.parents) if os.path.lexists(folder / ".git")), cwd)


def project_settings(ctx: Context) -> list[Path]:
    """The project layers in Droid's order: the git root's ``.factory`` files, then each deeper folder's."""
    cwd = Path(os.path.abspath(ctx.repo_root))
    root = git_root(cwd)
    folders = [root, *reversed([p for p in cwd.parents if p.is_relative_to(root) and p != root])]
    folders += [cwd] if cwd != root else []
    return [folder / ".factory" / name for folder in folders for name in (LOCAL, SETTINGS)]


def sources(ctx: Context) -> Sources:
    factory = factory_dir(ctx)
    targets = [Target(factory / HOOKS_JSON, Format.JSONC, new_text="// Managed by Elydora\n{}\n")]
    targets += [Target(factory / name, Format.JSONC) for name in USER_SOURCES[1:]]
    written = {t.path for t in targets}
    depends = [p for p in dict.fromkeys([managed_settings(ctx), *project_settings(ctx)]) if p not in written]
    return Sources(targets, depends, {p: Format.JSONC for p in depends})


def _paths(docs: Documents) -> dict[str, Path]:
    return dict(zip(USER_SOURCES, docs.targets, strict=True))


def _bare(name: str, value: Any) -> bool:
    return name == NESTED and isinstance(value, dict) and "hooks" not in value


def _hookmap(docs: Documents, name: str) -> tuple[Path, HookMap]:
    path = _paths(docs)[name]
    doc = docs.doc(path)
    return path, BARE_HOOKS if doc is not None and _bare(name, doc.value) else HOOKS


def hook_maps(docs: Documents) -> list[tuple[Path, HookMap]]:
    """The one map Droid runs hooks from: its active source's (see ``entries``)."""
    return [_hookmap(docs, active_source(docs))]


def active_source(docs: Documents) -> str:
    """The user source Droid loads hooks from (``hooks.json`` when none exists yet)."""
    for name, path in _paths(docs).items():
        original = layer(docs, path).value
        if original is not None and (name in (HOOKS_JSON, NESTED) or "hooks" in original):
            return name
    return HOOKS_JSON


def validate(docs: Documents) -> None:
    """Every user source: the hook map's shape, its switches' types, and its patterns as JavaScript RegExps."""
    patterns = []
    for name, path in _paths(docs).items():
        doc = docs.doc(path)
        if doc is None:
            continue
        value = doc.value
        schema = BARE_SCHEMA if _bare(name, value) else SCHEMA
        validate_hookmap(value, path, schema)
        explicit([Layer(path, value)], "hooksDisabled")  # must be a boolean wherever it is set
        keys = ("matcher", "commandRegex")
        patterns += group_patterns(value, path, schema.container, keys=keys, literal=lambda p: p in ("", "*"))
    require_compilable(patterns)


def blocked(docs: Documents, ctx: Context, active: str) -> tuple[Path, str] | None:
    """Why Droid would not run user hooks, and which file says so (``None``: it runs them).

    1. the system-managed file sets ``allowManagedHooksOnly: true``;
    2. the first explicit ``hooksDisabled`` of the system-managed file, the git root's and each deeper folder's
       ``.factory/settings.local.json`` then ``settings.json`` decides, either way;
    3. otherwise ``true`` in the user's ``settings.local.json`` (else ``settings.json``) blocks, and so does
       ``hooksDisabled: true`` at the root of an active ``hooks.json`` or legacy hooks file.
    """
    managed = layer(docs, managed_settings(ctx))
    only_managed = first_explicit([managed], "allowManagedHooksOnly")
    if only_managed and only_managed.value:
        return only_managed.path, f"{only_managed.describe()} (only organisation-managed hooks run)"
    policy = first_explicit([managed, *layers(docs, project_settings(ctx))], "hooksDisabled")
    if policy is not None:
        return (policy.path, policy.describe()) if policy.value else None
    paths = _paths(docs)
    hooks_file = [paths[active]] if active in (HOOKS_JSON, NESTED) else []
    for group in ([paths[LOCAL], paths[SETTINGS]], hooks_file):
        setting = first_explicit(layers(docs, group), "hooksDisabled")
        if setting is not None and setting.value:
            return setting.path, setting.describe()
    return None


def _refuse_if_blocked(docs: Documents, ctx: Context, active: str) -> None:
    reason = blocked(docs, ctx, active)
    if reason is not None:
        refuse_if(True, reason[0], f"Factory Droid does not run user hooks: {reason[1]}; change it to install")


def install(docs: Documents, ctx: Context) -> None:
    validate(docs)
    active = active_source(docs)
    _refuse_if_blocked(docs, ctx, active)
    for name in USER_SOURCES:
        if name != active:
            remove_hooks(docs, *_hookmap(docs, name), ctx, None)
    add_hooks(docs, *_hookmap(docs, active), ctx, ctx.agent_id_for(FACTS.id))


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    validate(docs)
    for name in USER_SOURCES:
        remove_hooks(docs, *_hookmap(docs, name), ctx, agent_ids)


def _holds_ours(value: Any, hm: HookMap, ctx: Context, agent_id: str) -> bool:
    for key in hm.container:
        value = value.get(key) if isinstance(value, dict) else None
    groups = [g for gs in value.values() if isinstance(gs, list) for g in gs] if isinstance(value, dict) else []
    handlers = [h for g in groups if isinstance(g, dict) and isinstance(g.get("hooks"), list) for h in g["hooks"]]
    return any((ref := hookmap.ours(hm, h, ctx)) is not None and ref.agent_id == agent_id for h in handlers)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    validate(docs)
    active = active_source(docs)
    reason = blocked(docs, ctx, active)
    if reason is not None:
        return [Finding(f"Factory Droid does not run user hooks: {reason[1]}", reason[0])]
    active_path = _paths(docs)[active]
    findings = check_hooks(docs, *_hookmap(docs, active), ctx, agent_id)
    for name in USER_SOURCES:
        path, hm = _hookmap(docs, name)
        doc = docs.doc(path)
        if name != active and doc is not None and _holds_ours(doc.value, hm, ctx, agent_id):
            message = f"holds Elydora entries Droid does not load ({active_path} is the active hooks source)"
            findings.append(Finding(message, path, severity="note"))
    return findings


NOTES = ("Review the hooks with /hooks inside Factory Droid; restart running sessions so they load them.",)
