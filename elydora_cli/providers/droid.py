"""Factory Droid: JSONC hooks (trailing commas allowed) in the user sources Droid loads under ``~/.factory``.

Droid 0.225.2 loads user hooks from ``hooks.json`` (else the legacy ``hooks/hooks.json``) and from the ``hooks``
key of ``settings.json``, merged one event at a time (an event the hooks file defines never runs from
``settings.json``); never from ``settings.local.json``. The *active* source is the first of ``hooks.json``, the
legacy file and ``settings.json`` with a ``hooks`` key; each of our groups goes where Droid runs the user's
groups for its event (see :func:`placement`). The two hooks files are bare event maps
(``{"PreToolUse": [...]}``, with ``hooksDisabled`` / ``showHookOutput`` at the root): Droid validates their root
as the hook map and ignores any other key, so a ``{"hooks": {...}}`` wrapper (what older installers wrote) is
never loaded. Our entries in the other user sources and in such a wrapper are removed. ``hooksDisabled`` is
read from the system-managed file, the project's ``.factory`` folders and the user files (see :func:`blocked`);
every file consulted is a snapshot precondition of the transaction.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.records import replace

from .. import catalog
from ..plug import defaults, hookmap
from ..plug.common import (
    add_hooks,
    catalog_events,
    check_hooks,
    command_handler,
    refuse_if,
    remove_hooks,
)
from ..plug.context import Context
from ..plug.contract import Document, Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookfile import handlers
from ..plug.hookmap import HookMap
from ..plug.jsregex import group_patterns, require_compilable
from ..plug.layers import OFF, Layer, explicit, first_explicit, layer, layers, lookup, system_file
from ..plug.pairforms import OldShape, exactly, recogniser
from ..plug.schema import BOOL, NONEMPTY_STR, OBJECT, POS_NUMBER, STR, HandlerSchema, MapSchema, validate_hookmap

if TYPE_CHECKING:
    from typing import Any

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
BARE_SCHEMA = replace(SCHEMA, container=(), switches={**SWITCHES, WRAPPER: OBJECT})
MANAGED = {
    "posix": "/etc/factory/settings.json",
    "macos": "/Library/Application Support/Factory/settings.json",
    "windows": "%ProgramFiles%\\Factory\\settings.json",
}


REFERENCE = OldShape(
    frozenset({"type", "command", "timeout"}),
    "command",
    ("posix", "call", "dquoted"),  # the Python SDK installer's POSIX, PowerShell and older Windows forms
    checks={"type": exactly("command"), "timeout": exactly(10)},
)


make_handler = command_handler()


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    group={"matcher": "*"},
    legacy=recogniser(REFERENCE),
)
BARE_HOOKS = replace(HOOKS, container=())


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
    """Where Droid loads each of our events from (see :func:`placement`)."""
    return _maps(docs, placement(docs))


def active_source(docs: Documents) -> str:
    """The user source Droid reads first (``hooks.json`` when none exists yet)."""
    for name in LOADED:
        original = layer(docs, _paths(docs)[name]).value
        if original is not None and (name in HOOK_FILES or "hooks" in original):
            return name
    return HOOKS_JSON


def _only_ours(group: Any, ctx: Context, docs: Documents) -> bool:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(inner, list) and bool(inner) and all(hookmap.ours(HOOKS, h, ctx, docs.recorded) for h in inner)


def _defines(docs: Documents, name: str, event: str, ctx: Context | None) -> bool:
    """``name`` (as read) has ``event`` in its hook map; with ``ctx``, groups holding only our handlers do not count."""
    key = (event,) if name in HOOK_FILES else ("hooks", event)
    found, groups = lookup(layer(docs, _paths(docs)[name]).value, key)
    if not found or ctx is None or not isinstance(groups, list) or not groups:
        return found
    return not all(_only_ours(group, ctx, docs) for group in groups)


def placement(docs: Documents, ctx: Context | None = None) -> dict[str, dict[str, str]]:
    """Source -> our events (and roles) it holds, one event at a time.

    Droid merges the hooks file over ``settings.json`` per event: an event the hooks file defines runs only
    from there. Without ``ctx``: where Droid loads each event from now. With ``ctx``: where install puts our
    group, so that no user group stops running: the active hooks file when it defines the event, else
    ``settings.json`` when it does, else the active source (our own groups do not count as defining).
    """
    active = active_source(docs)
    placed: dict[str, dict[str, str]] = {}
    for event, role in HOOKS.events.items():
        name = next((n for n in (active, SETTINGS) if _defines(docs, n, event, ctx)), active)
        placed.setdefault(name, {})[event] = role
    return placed


def _maps(docs: Documents, placed: dict[str, dict[str, str]]) -> list[tuple[Path, HookMap]]:
    maps = [(name, *_hookmap(docs, name)) for name in placed]
    return [(path, replace(hm, events=placed[name])) for name, path, hm in maps]


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
    hookmap.remove(docs.edit(path, doc), HOOKS, ctx, agent_ids)
    if len(log.removed) > before and doc.value.get(WRAPPER) == {}:
        doc.remove((WRAPPER,))


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    validate(docs)
    active = active_source(docs)
    _refuse_if_blocked(docs, ctx, active)
    placed = placement(docs, ctx)
    for name in USER_SOURCES:
        _unwrap(docs, name, ctx, None)
        path, hm = _hookmap(docs, name)
        if name in placed:
            add_hooks(docs, path, replace(hm, events=placed[name]), ctx, agent_id)
        else:
            remove_hooks(docs, path, hm, ctx, None)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    validate(docs)
    for name in USER_SOURCES:
        _unwrap(docs, name, ctx, agent_ids)
        remove_hooks(docs, *_hookmap(docs, name), ctx, agent_ids)


def _our_events(doc: Document | None, hm: HookMap, ctx: Context, agent_id: str) -> list[str]:
    found = [(event, hookmap.ours(hm, h, ctx)) for _, event, h in handlers(doc.value if doc is not None else None, hm)]
    return list(dict.fromkeys(event for event, ref in found if ref is not None and ref.agent_id == agent_id))


def _unloaded(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Entries of ours Droid does not load or that shadow the user's groups, and the user's in a wrapper."""
    loaded = {event: name for name, events in placement(docs).items() for event in events}
    wanted = {event: name for name, events in placement(docs, ctx).items() for event in events}
    notes = []
    for name in USER_SOURCES:
        path, hm = _hookmap(docs, name)
        doc = docs.doc(path)
        events = _our_events(doc, hm, ctx, agent_id)
        if skipped := [e for e in events if loaded.get(e) != name]:
            message = f"holds Elydora entries Droid does not load from here ({', '.join(skipped)})"
            notes.append(Finding(message, path, severity="note"))
        for event in (e for e in events if loaded.get(e) == name != SETTINGS == wanted[e]):  # ours shadow the user's
            other = _paths(docs)[SETTINGS]
            message = f"the Elydora {event} group here keeps Droid from running the {event} groups of {other}"
            notes.append(Finding(message + "; run install to move it there", path))
        if name not in HOOK_FILES or doc is None or not isinstance(doc.value.get(WRAPPER), dict):
            continue
        if _our_events(doc, HOOKS, ctx, agent_id):
            message = f'holds Elydora entries under "{WRAPPER}", which Droid ignores here; run install to move them'
            notes.append(Finding(message, path, severity="note"))
        elif name == active_source(docs) and any(True for _ in handlers(doc.value, HOOKS)):
            message = f'Droid reads this file as a bare event map and ignores the hooks under its "{WRAPPER}" key'
            notes.append(Finding(message, path, severity="note"))
    return notes


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    """Our entry for each event in the source Droid loads that event from, and what it does not load."""
    validate(docs)
    reason = blocked(docs, ctx, active_source(docs))
    if reason is not None:
        return [Finding(f"Factory Droid does not run user hooks: {reason[1]}", reason[0], severity=OFF)]
    findings = [f for path, hm in hook_maps(docs) for f in check_hooks(docs, path, hm, ctx, agent_id)]
    return findings + _unloaded(docs, ctx, agent_id)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime = defaults.no_extra_runtime
installed_entries = defaults.entries_in(hook_maps)
agent_argv = defaults.default_argv

NOTES = ("Review the hooks with /hooks inside Factory Droid; restart running sessions so they load them.",)
