"""Factory Droid: JSONC hooks (trailing commas allowed) in the one active user source under ``~/.factory``.

Droid 0.225.2 loads user hooks from ``hooks.json`` (else the legacy ``hooks/hooks.json``) and from the ``hooks``
key of ``settings.json``; never from ``settings.local.json``. We write to the first of ``hooks.json``, the legacy
file and ``settings.json`` with a ``hooks`` key (the *active* source). The two hooks files are bare event maps
(``{"PreToolUse": [...]}``, with ``hooksDisabled`` / ``showHookOutput`` at the root): Droid validates their root
as the hook map and ignores any other key, so a ``{"hooks": {...}}`` wrapper (what older installers wrote) is
never loaded. Our entries in the other user sources and in such a wrapper are removed. ``hooksDisabled`` is
read from the system-managed file, the project's ``.factory`` folders and the user files (see :func:`blocked`);
every file consulted is a snapshot precondition of the transaction.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from .. import catalog
from . import hookmap
from .base import Document, Finding, Format, Sources, Target
from .cmdforms import powershell_call
from .common import add_hooks, catalog_events, check_hooks, refuse_if, remove_hooks, shell_command
from .context import Context
from .documents import Documents
from .hookfile import handlers
from .hookmap import HookMap
from .jsregex import group_patterns, require_compilable
from .layers import Layer, explicit, first_explicit, layer, layers, system_file
from .ownership import Ref, runtime_argv
from .pairforms import OldShape, exactly, recogniser
from .schema import BOOL, NONEMPTY_STR, OBJECT, POS_NUMBER, STR, HandlerSchema, MapSchema, validate_hookmap

FACTS = catalog.provider("droid")
HOOKS_JSON, NESTED, LOCAL, SETTINGS = "hooks.json", "hooks/hooks.json", "settings.local.json", "settings.json"
USER_SOURCES = (HOOKS_JSON, NESTED, LOCAL, SETTINGS)
"""Every user file that may hold our entries (older installers wrote to ``settings.local.json`` too)."""
LOADED = (HOOKS_JSON, NESTED, SETTINGS)
"""The sources Droid loads hooks from, in the order we pick the active one (the first two when the file exists,
``settings.json`` when it has ``hooks``)."""
HOOK_FILES = (HOOKS_JSON, NESTED)
"""Bare event maps; the settings files keep their map under ``hooks``."""
WRAPPER = "hooks"
"""An old ``{"hooks": {...}}`` wrapper in a hooks file: Droid ignores it."""
SWITCHES = {"hooksDisabled": BOOL, "showHookOutput": BOOL}
"""Root keys of a bare event map that are settings, not events."""
HANDLERS = HandlerSchema(
    by_type={"command": {"command": NONEMPTY_STR}},
    common={"timeout": POS_NUMBER},
    required={"command": ["command"]},
    open_keys=True,
)
SCHEMA = MapSchema(HANDLERS, group={"matcher": STR, "commandRegex": STR}, open_group_keys=True)
BARE_SCHEMA = dataclasses.replace(SCHEMA, container=(), switches={**SWITCHES, WRAPPER: OBJECT})
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
    fresh = "// Managed by Elydora\n{\n}\n"  # a multi-line start: pretty edits
    targets = [Target(factory / HOOKS_JSON, Format.JSONC, new_text=fresh)]
    targets += [Target(factory / name, Format.JSONC) for name in USER_SOURCES[1:]]
    written = {t.path for t in targets}
    depends = [p for p in dict.fromkeys([managed_settings(ctx), *project_settings(ctx)]) if p not in written]
    return Sources(targets, depends, {p: Format.JSONC for p in depends})


def _paths(docs: Documents) -> dict[str, Path]:
    return dict(zip(USER_SOURCES, docs.targets, strict=True))


def _hookmap(docs: Documents, name: str) -> tuple[Path, HookMap]:
    return _paths(docs)[name], BARE_HOOKS if name in HOOK_FILES else HOOKS


def hook_maps(docs: Documents) -> list[tuple[Path, HookMap]]:
    """The one map Droid runs hooks from: its active source's (see ``entries``)."""
    return [_hookmap(docs, active_source(docs))]


def active_source(docs: Documents) -> str:
    """The user source we write to (``hooks.json`` when none exists yet)."""
    for name in LOADED:
        original = layer(docs, _paths(docs)[name]).value
        if original is not None and (name in HOOK_FILES or "hooks" in original):
            return name
    return HOOKS_JSON


def validate(docs: Documents) -> None:
    """Every user source: the hook map's shape, its switches' types, and its patterns as JavaScript RegExps.

    An old wrapper in a hooks file is checked for the shape our edits need; Droid never compiles its patterns.
    """
    patterns = []
    for name, path in _paths(docs).items():
        doc = docs.doc(path)
        if doc is None:
            continue
        value = doc.value
        bare = name in HOOK_FILES
        validate_hookmap(value, path, BARE_SCHEMA if bare else SCHEMA)
        if bare:
            validate_hookmap(value, path, SCHEMA)
        explicit([Layer(path, value)], "hooksDisabled")  # must be a boolean wherever it is set
        container = () if bare else SCHEMA.container
        keys = ("matcher", "commandRegex")
        patterns += group_patterns(value, path, container, keys=keys, literal=lambda p: p in ("", "*"))
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
    hooks_file = [paths[active]] if active in HOOK_FILES else []
    for group in ([paths[LOCAL], paths[SETTINGS]], hooks_file):
        setting = first_explicit(layers(docs, group), "hooksDisabled")
        if setting is not None and setting.value:
            return setting.path, setting.describe()
    return None


def _refuse_if_blocked(docs: Documents, ctx: Context, active: str) -> None:
    reason = blocked(docs, ctx, active)
    if reason is not None:
        refuse_if(True, reason[0], f"Factory Droid does not run user hooks: {reason[1]}; change it to install")


def _unwrap(docs: Documents, name: str, ctx: Context, agent_ids: set[str] | None) -> None:
    """Remove our entries from an old ``hooks`` wrapper of a hooks file, and the wrapper when that empties it."""
    path = _paths(docs)[name]
    doc = docs.doc(path)
    if name not in HOOK_FILES or doc is None or not isinstance(doc.value.get(WRAPPER), dict):
        return
    log = docs.log(path)
    before = len(log.removed)
    made = docs.created.get(path)
    hookmap.remove(doc, HOOKS, ctx, agent_ids=agent_ids, recorded=docs.recorded, created=made, log=log)
    if len(log.removed) > before and doc.value.get(WRAPPER) == {}:
        doc.remove((WRAPPER,))


def install(docs: Documents, ctx: Context) -> None:
    validate(docs)
    active = active_source(docs)
    _refuse_if_blocked(docs, ctx, active)
    for name in USER_SOURCES:
        _unwrap(docs, name, ctx, None)
        if name != active:
            remove_hooks(docs, *_hookmap(docs, name), ctx, None)
    add_hooks(docs, *_hookmap(docs, active), ctx, ctx.agent_id_for(FACTS.id))


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    validate(docs)
    for name in USER_SOURCES:
        _unwrap(docs, name, ctx, agent_ids)
        remove_hooks(docs, *_hookmap(docs, name), ctx, agent_ids)


def _holds_ours(doc: Document | None, hm: HookMap, ctx: Context, agent_id: str) -> bool:
    refs = [hookmap.ours(hm, h, ctx) for *_, h in handlers(doc.value if doc is not None else None, hm)]
    return any(ref is not None and ref.agent_id == agent_id for ref in refs)


def _unloaded(docs: Documents, ctx: Context, agent_id: str, active: str) -> list[Finding]:
    """Notes on entries Droid does not load: ours in an inactive source or a wrapper, the user's in the wrapper."""
    active_path = _paths(docs)[active]
    notes = []
    for name in USER_SOURCES:
        path, hm = _hookmap(docs, name)
        doc = docs.doc(path)
        if name != active and _holds_ours(doc, hm, ctx, agent_id):
            message = f"holds Elydora entries Droid does not load ({active_path} is the active hooks source)"
            notes.append(Finding(message, path, severity="note"))
        if name not in HOOK_FILES or doc is None or not isinstance(doc.value.get(WRAPPER), dict):
            continue
        if _holds_ours(doc, HOOKS, ctx, agent_id):
            message = f'holds Elydora entries under "{WRAPPER}", which Droid ignores here; run install to move them'
            notes.append(Finding(message, path, severity="note"))
        elif name == active and any(True for _ in handlers(doc.value, HOOKS)):
            message = f'Droid reads this file as a bare event map and ignores the hooks under its "{WRAPPER}" key'
            notes.append(Finding(message, path, severity="note"))
    return notes


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    validate(docs)
    active = active_source(docs)
    reason = blocked(docs, ctx, active)
    if reason is not None:
        return [Finding(f"Factory Droid does not run user hooks: {reason[1]}", reason[0])]
    return check_hooks(docs, *_hookmap(docs, active), ctx, agent_id) + _unloaded(docs, ctx, agent_id, active)


NOTES = ("Review the hooks with /hooks inside Factory Droid; restart running sessions so they load them.",)
