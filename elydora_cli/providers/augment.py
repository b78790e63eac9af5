"""Auggie (Augment Code CLI): strict JSON ``~/.augment/settings.json``; exec-form handlers (``command`` + ``args``).

Auggie 0.36 spawns a handler without a shell: ``command`` with ``args`` as they stand (it goes through
``bash -c`` only when ``args`` is empty and ``command`` holds one of ``| & ; < > $``, a backtick, or starts
with ``~``, and splits an ``args``-less command at spaces), after expanding ``${VAR}`` references. So our
handler is the runtime's argv in exec form: interpreter ``-I -S`` script (or the ``--hook-command``
supervisor), never a quoted string. Earlier versions wrote the POSIX-quoted path of a wrapper script
(``'…/augment-guard.sh'``), which Auggie cannot spawn (ENOENT, treated as non-blocking): such entries are
recognised and replaced, and the wrappers removed. Hooks run only when Auggie's ``enable_hooks`` feature
flag, sent by Augment's server, is on. Matchers exist on the two tool events only and are JavaScript
regular expressions, so install has Node.js compile every user matcher.

Under ``--scope system`` the same entries go into ``/etc/augment/settings.json`` (see :mod:`..managed`), whose hooks
Auggie adds to every user's; status also says whether that file keeps ``featureFlagOverrides`` out of users' hands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import catalog, managed
from ..plug import defaults
from ..plug.cmdforms import posix_quote
from ..plug.common import add_hooks, catalog_events, check_hooks, remove_hooks, single_target
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources, Target
from ..plug.documents import Documents
from ..plug.hookmap import HookMap
from ..plug.jsregex import Pattern, group_patterns, require_compilable
from ..plug.layers import managed_file
from ..plug.ownership import AUDIT, GUARD, Ref, refs_in, runtime_argv
from ..plug.schema import NONEMPTY_STR, POS_NUMBER, STR, STR_LIST, Check, HandlerSchema, MapSchema

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("augment")
MAX_BYTES = 512 * 1024
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
SIMPLE_EVENTS = ("Stop", "SessionStart", "SessionEnd", "Notification", "PromptSubmit")
METADATA_FLAGS = ("includeConversationData", "includeMCPMetadata", "includeUserContext")
METADATA = Check(
    lambda v: isinstance(v, dict) and all(isinstance(v[k], bool) for k in METADATA_FLAGS if k in v),
    "an object whose " + ", ".join(METADATA_FLAGS) + " are true or false",
)
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={"command": {"command": NONEMPTY_STR, "args": STR_LIST, "timeout": POS_NUMBER}},
        required={"command": ["command"]},
        open_keys=True,
    ),
    events=TOOL_EVENTS + SIMPLE_EVENTS,
    group={"matcher": STR, "metadata": METADATA},
    open_group_keys=True,
    simple_events=SIMPLE_EVENTS,
)
OUR_MATCHER = ".*"
OLD_WRAPPERS = {GUARD: "augment-guard", AUDIT: "augment-hook"}
"""The wrapper scripts earlier versions generated and named, quoted, as the whole command."""
OLD_SCRIPTS = {f"{name}{ext}": role for role, name in OLD_WRAPPERS.items() for ext in (".sh", ".cmd")}
OLD_KEYS = frozenset({"type", "command", "timeout"})


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    """The runtime's argv in exec form: Auggie spawns ``command`` with ``args`` directly."""
    argv = runtime_argv(ref, ctx)
    return {"type": "command", "command": argv[0], "args": argv[1:], "timeout": ref.timeout}


def old_command(path: str, ctx: Context) -> str:
    """The quoted wrapper path earlier versions wrote: POSIX single quotes, or Windows double quotes."""
    return '"' + path.replace('"', '\\"') + '"' if ctx.windows else posix_quote(path)


def legacy(handler: Any, ctx: Context) -> Ref | None:
    """An entry of the quoted-wrapper form (exactly its keys and its command), to be replaced on install."""
    if set(handler) != OLD_KEYS or handler.get("type") != "command":
        return None
    for ref in refs_in(handler, ctx, OLD_SCRIPTS):
        path = ctx.agent_dir(ref.agent_id) / (OLD_WRAPPERS[ref.role] + (".cmd" if ctx.windows else ".sh"))
        if handler.get("command") == old_command(str(path), ctx):
            return Ref(ref.agent_id, ref.role, ref.python, handler.get("timeout"))
    return None


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    group={"matcher": OUR_MATCHER},
    unit="ms",
    legacy=legacy,
)


def sources(ctx: Context) -> Sources:
    if ctx.system:  # /etc/augment/settings.json: the same schema, read first by every user's Auggie
        target, mode = managed_file(ctx, FACTS.id), managed.POLICY_MODE
    else:
        target, mode = ctx.home / ".augment" / "settings.json", None
    settings = Target(target, Format.JSON, new_text="{\n}\n", max_bytes=MAX_BYTES, mode=mode)
    return Sources([settings], blank_is_empty=True)  # Auggie 0.36's hook loader: a blank file is no hooks


def user_matchers(path: Path, value: Any) -> list[Pattern]:
    """Every matcher Auggie will compile, except our own ``.*`` (valid in every JavaScript engine)."""
    return group_patterns(value, path, ("hooks",), events=TOOL_EVENTS, literal=lambda p: p == OUR_MATCHER)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    """Install needs Node.js only when the file holds matchers of the user's (Auggie compiles them)."""
    path = single_target(docs, SCHEMA)
    doc = docs.doc(path)
    require_compilable(user_matchers(path, doc.value if doc is not None else None))
    add_hooks(docs, path, HOOKS, ctx, agent_id)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    path = single_target(docs, SCHEMA)
    found = [*check_hooks(docs, path, HOOKS, ctx, agent_id), Finding(ENABLE_HOOKS_NOTE, path, severity="note")]
    if ctx.system:
        doc = docs.doc(path)
        found += _overrides(path, doc.value if doc is not None else None)
    return found


def _overrides(path: Path, value: Any) -> list[Finding]:
    """``featureFlagOverrides`` of the managed file: Auggie takes the key from the first settings file that has it,
    the managed one first, and applies it only where Augment's server allows client flag overrides."""
    if not isinstance(value, dict) or OVERRIDES_KEY not in value:
        return [Finding(OVERRIDES_OPEN, path, severity="note")]
    flags = value[OVERRIDES_KEY]
    if isinstance(flags, dict) and any(flags.get(k) is False for k in ENABLE_HOOKS_FLAGS):
        return [Finding(f"{OVERRIDES_KEY} turns enable_hooks off: where Augment's server allows client flag overrides "
                        "no hook runs, ours included", path, severity="note")]
    return []


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    remove_hooks(docs, single_target(docs, SCHEMA), HOOKS, ctx, agent_ids)


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime = defaults.no_extra_runtime
installed_entries = defaults.entries_in(defaults.first_target(HOOKS))
agent_argv = defaults.default_argv

OVERRIDES_KEY = "featureFlagOverrides"
ENABLE_HOOKS_FLAGS = ("enableHooks", "enable_hooks")
"""The JSON names Auggie's flag parser accepts for the ``enable_hooks`` flag in ``featureFlagOverrides``."""
OVERRIDES_OPEN = (
    f"{OVERRIDES_KEY} is not set here: where Augment's server allows client flag overrides, a user's "
    f'{OVERRIDES_KEY} {{"enableHooks": false}} switches every hook off, ours included; set {OVERRIDES_KEY} '
    "in this file (e.g. to {}) to take that key out of users' hands"
)
ENABLE_HOOKS_NOTE = (
    "Auggie runs hooks only when its `enable_hooks` feature flag is on; Augment's server sets that flag, not"
    " Elydora (settings' featureFlagOverrides count only where that server allows client overrides): check that"
    " `/hooks` exists inside Auggie."
)
NOTES = ("Restart Auggie so it loads the new hooks; check with `auggie tools list`.", ENABLE_HOOKS_NOTE)
