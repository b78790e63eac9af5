"""GitHub Copilot CLI: our own versioned hook file in ``<COPILOT_HOME>/hooks/``, flat handlers, ``timeoutSec``.

Copilot runs every handler with ``bash`` (or ``powershell`` on Windows), so both are always written. Hooks are
switched off by ``disableAllHooks``: across six settings layers the last explicit boolean wins (``false``
clears an earlier ``true``), and ``true`` in our own file switches off that file whatever the layers say.
Older installers wrote to the repository's ``.github/hooks/hooks.json``: install moves those entries out.

Under ``--scope system`` the same file goes into Copilot's policy folder (``/etc/github-copilot/policy.d/``,
Windows ``%ProgramData%\\GitHub\\Copilot\\policy.d``) as ``elydora.json``: policy hooks load before every other
source, run whatever ``disableAllHooks`` says and in folders the user has not trusted, and Copilot reads the file
only while it and its folders are root's and not group- or other-writable (status checks that).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import MalformedConfigError
from elydora_config.records import replace

from .. import catalog, managed
from ..plug import defaults, hookfile, runners
from ..plug.cmdforms import posix_command, powershell_call
from ..plug.common import catalog_events
from ..plug.context import Context
from ..plug.contract import Finding, Format, Sources
from ..plug.documents import Documents, parse
from ..plug.hookfile import HookFile
from ..plug.hookmap import HookMap
from ..plug.jsregex import Pattern, require_compilable
from ..plug.layers import Layer, last_explicit, managed_file
from ..plug.ownership import Ref, runtime_argv
from ..plug.pairforms import SAME, OldShape, exactly, recogniser
from ..plug.schema import BOOL, NONEMPTY_STR, NONEMPTY_STR_LIST, POS_NUMBER, STR, Check, HandlerSchema, MapSchema
from ..plug.systempin import access_findings

if TYPE_CHECKING:
    from typing import Any

FACTS = catalog.provider("copilot")
EVENTS = [
    *("agentStop", "Stop", "errorOccurred", "ErrorOccurred", "notification", "Notification"),
    *("permissionRequest", "PermissionRequest", "postToolUse", "PostToolUse", "postToolUseFailure"),
    *("PostToolUseFailure", "preCompact", "PreCompact", "preToolUse", "PreToolUse", "sessionEnd", "SessionEnd"),
    *("sessionStart", "SessionStart", "subagentStart", "SubagentStart", "subagentStop", "SubagentStop"),
    *("userPromptSubmitted", "UserPromptSubmit", "userPromptTransformed"),
]
NONEMPTY_STR_MAP = Check(
    lambda v: isinstance(v, dict) and all(isinstance(x, str) and x for x in v.values()), "a map of non-empty strings"
)
SCHEMA = MapSchema(
    HandlerSchema(
        by_type={
            "command": {"bash": STR, "powershell": STR, "command": STR, "cwd": STR, "env": NONEMPTY_STR_MAP},
            "http": {"url": STR, "headers": NONEMPTY_STR_MAP, "allowedEnvVars": NONEMPTY_STR_LIST},
            "prompt": {"prompt": NONEMPTY_STR},
        },
        common={"timeout": POS_NUMBER, "timeoutSec": POS_NUMBER, "matcher": NONEMPTY_STR},
        required={"http": ["url"], "prompt": ["prompt"]},
        default_type="command",
    ),
    events=EVENTS,
    grouped=False,
)
ANY_TOOL_EVENTS = frozenset({"preToolUse", "PreToolUse", "permissionRequest", "PermissionRequest"})
"""Events where ``*`` and ``**`` mean "every tool" instead of being compiled as regular expressions."""
LOCALHOST_SWITCH = "COPILOT_HOOK_ALLOW_LOCALHOST"
_LOOPBACK = r"(?i)http://(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:[/?#].*)?"
_HTTPS = r"(?i)https://[^/\s?#]+.*"
"""Compiled on first use (by :mod:`re`'s cache): only a Copilot file with an ``http`` hook needs them."""
KEYS = frozenset({"type", "bash", "powershell", "timeoutSec"})


def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
    argv = runtime_argv(ref, ctx)
    return {
        "type": "command",
        "bash": posix_command(argv),
        "powershell": powershell_call(argv),
        "timeoutSec": ref.timeout,
    }


HOOKS = HookMap(
    events=catalog_events(FACTS),
    make=make_handler,
    grouped=False,
    timeout_key="timeoutSec",
    legacy=recogniser(
        # the Python SDK installer: both shells, no interpreter flags (bash fully quoted, or quoted where needed)
        OldShape(KEYS, "bash", ("posix", "joined"), checks={"type": exactly("command")}, also={"powershell": "call"}),
        # the first installer: 5 s, the same `"<interpreter>" <script>` (or bare script) for both shells
        OldShape(
            KEYS,
            "bash",
            ("quoted", "bare"),
            checks={"type": exactly("command"), "timeoutSec": exactly(5)},
            also={"powershell": SAME},
            any_interpreter=True,
        ),
    ),
)


def _home(ctx: Context) -> Path:
    return ctx.env_dir("COPILOT_HOME") or ctx.home / ".copilot"


def settings_layers(ctx: Context) -> list[Path]:
    """Where Copilot reads ``disableAllHooks``, lowest precedence first (all JSONC)."""
    home, cwd = _home(ctx), ctx.repo_root
    return [
        home / "config.json",  # Copilot writes it itself, starting with `//` comment lines
        home / "settings.json",
        cwd / ".claude" / "settings.json",
        cwd / ".claude" / "settings.local.json",
        cwd / ".github" / "copilot" / "settings.json",
        cwd / ".github" / "copilot" / "settings.local.json",
    ]


def _layer(docs: Documents, path: Path) -> Layer:
    """A layer read as raw JSONC text (comments and trailing commas allowed; a blank file counts as ``{}``)."""
    text = docs.depends.get(path)
    if text is None or not text.strip():
        return Layer(path, None if text is None else {})
    return Layer(path, parse(text, Format.JSONC, path).value)


def _disabled(docs: Documents, ctx: Context, path: Path, value: dict[str, Any]) -> str | None:
    setting = last_explicit([_layer(docs, p) for p in settings_layers(ctx)], "disableAllHooks")
    if setting is not None and setting.value is True:
        return f"GitHub Copilot CLI hooks are disabled: {setting.describe()}"
    if value.get("disableAllHooks") is True:
        return f"GitHub Copilot CLI ignores this file: disableAllHooks is true in {path}"
    return None


def _rules(path: Path, value: dict[str, Any], ctx: Context) -> None:
    """What Copilot checks beyond key types: a command to run, where HTTP may go, prompts, matchers."""
    patterns = []
    for where, event, handler in hookfile.handlers(value, HOOKS):
        kind = handler.get("type", "command")
        if kind == "command" and not {"bash", "powershell", "command"} & set(handler):
            raise MalformedConfigError(path, f"{where} needs at least one of bash, powershell or command")
        if kind == "http" and not _allowed_url(handler["url"], ctx):
            raise MalformedConfigError(
                path, f"{where}.url must be https:// (http:// only to loopback with {LOCALHOST_SWITCH}=1)"
            )
        if kind == "prompt" and event not in ("sessionStart", "SessionStart"):
            raise MalformedConfigError(path, f"{where} is a prompt hook, which Copilot allows only on sessionStart")
        matcher = handler.get("matcher")
        if matcher is not None and not (event in ANY_TOOL_EVENTS and matcher in ("*", "**")):
            patterns.append(Pattern(path, f"{where}.matcher", f"^(?:{matcher})$"))
    require_compilable(patterns)


def _allowed_url(url: str, ctx: Context) -> bool:
    return bool(re.fullmatch(_HTTPS, url)) or (
        ctx.env_value(LOCALHOST_SWITCH) == "1" and bool(re.fullmatch(_LOOPBACK, url))
    )


ROLES = HOOKS.events
HOOK_COMMAND_REFUSED = defaults.HOOK_COMMAND_ACCEPTED
ENV_SWITCHES = defaults.NO_ENV_SWITCHES
extra_runtime = defaults.no_extra_runtime
installed_entries = defaults.entries_in(defaults.first_target(HOOKS))

FILE = HookFile(
    FACTS.id,
    HOOKS,
    SCHEMA,
    stamp={"version": 1},
    switches={"disableAllHooks": BOOL},
    rules=_rules,
    disabled=_disabled,
)


def _own_switch(docs: Documents, ctx: Context, path: Path, value: dict[str, Any]) -> str | None:
    """A policy file is read whatever the settings layers say; only its own ``disableAllHooks`` could matter."""
    if value.get("disableAllHooks") is True:
        return f"GitHub Copilot CLI ignores this file: disableAllHooks is true in {path}"
    return None


POLICY_FILE = replace(FILE, disabled=_own_switch)


def sources(ctx: Context) -> Sources:
    if ctx.system:  # the policy folder: loaded first, for every user, whatever disableAllHooks and folder trust say
        target = replace(POLICY_FILE.target(managed_file(ctx, FACTS.id)), mode=managed.POLICY_MODE)
        return Sources([target])
    return Sources(
        [
            FILE.target(_home(ctx) / "hooks" / "elydora-audit.json"),
            FILE.target(ctx.repo_root / ".github" / "hooks" / "hooks.json"),  # legacy location, migrated
        ],
        depends=settings_layers(ctx),
    )


_install, _uninstall, _check = hookfile.plug(FILE)
_install_policy, _uninstall_policy, _check_policy = hookfile.plug(POLICY_FILE)


def install(docs: Documents, ctx: Context, agent_id: str) -> None:
    (_install_policy if ctx.system else _install)(docs, ctx, agent_id)


def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
    (_uninstall_policy if ctx.system else _uninstall)(docs, ctx, agent_ids)


def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
    if not ctx.system:
        return _check(docs, ctx, agent_id)
    found = _check_policy(docs, ctx, agent_id)
    return found or access_findings(ctx, next(iter(docs.targets)), FACTS.display_name)


def agent_argv(handler: dict[str, Any], ctx: Context) -> list[str]:
    """How Copilot runs a handler: its ``bash`` field through bash on Linux and macOS, its ``powershell`` field
    through PowerShell on Windows."""
    if ctx.windows:
        return runners.powershell_argv(handler["powershell"], ctx.env)
    return ["bash", "-c", handler["bash"]]


NOTES = ("Restart running GitHub Copilot CLI sessions so they load the new hooks.",)
