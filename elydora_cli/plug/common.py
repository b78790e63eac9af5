"""Small pieces several providers share: refusals, legacy recognisers, the standard plug functions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError

from .. import catalog
from . import hookmap
from .cmdforms import encoded_powershell, posix_command, powershell_call
from .context import Context
from .contract import Finding
from .documents import Documents
from .hookmap import HookMap
from .layers import Setting, switched_off
from .ownership import AUDIT, GUARD, HandlerFactory, Ref, refs_in, runtime_argv, script_path
from .schema import MapSchema, validate_hookmap

if TYPE_CHECKING:
    from typing import Any


def catalog_events(facts: catalog.Provider) -> dict[str, str]:
    """Event name -> role, from the catalog: the pre-tool event guards, the post-tool events audit (an agent
    that audits on its pre-tool event too, Crush, needs two maps and cannot use this)."""
    events = {facts.events.pre_tool: GUARD}
    events.update({event: AUDIT for event in facts.events.audit_events if event != facts.events.pre_tool})
    return events


STATUS_MESSAGES = {"guard": "Checking Elydora agent state", "audit": "Recording Elydora tool use"}


class RefusedError(ConfigError):
    """The agent's own configuration forbids the operation (hooks disabled...); nothing was written."""


UNLOADABLE_MODULE = (
    "holds a backslash: the agent loads this file as a JavaScript module, which Node refuses from such a path outside "
    "Windows (Pi's loader takes the backslash for a separator), so none of our hooks would run (Cline would run its "
    "tools unguarded); use folders whose names hold no backslash"
)
"""Why an agent that loads our generated module in Node (Cline's hook scripts, the OpenCode family's plugins,
Pi's extension) cannot load it from a path holding a backslash (real agents and ``verify`` both fail there)."""


def module_path_problem(path: Path, windows: bool) -> str | None:
    """:data:`UNLOADABLE_MODULE` when the agent could not load our module at ``path`` (or below it); ``None`` when
    it can (on Windows a backslash is the separator)."""
    return UNLOADABLE_MODULE if not windows and "\\" in str(path) else None


def refuse_if(condition: bool, path: Path, reason: str) -> None:
    if condition:
        raise RefusedError(path, reason)


def shell_command(ref: Ref, ctx: Context) -> str:
    """The POSIX shell form of our runtime command for ``ref``."""
    return posix_command(runtime_argv(ref, ctx))


WindowsForm = Callable[[list[str], Context], str]
"""How an agent's Windows entries spell the runtime argv (the POSIX form is the same for every agent)."""


def call_operator(argv: list[str], ctx: Context) -> str:
    """``& '<python>' ... ; exit $LASTEXITCODE`` (PowerShell's call operator)."""
    return powershell_call(argv)


def encoded_command(argv: list[str], ctx: Context) -> str:
    """``powershell.exe ... -EncodedCommand <base64>``."""
    return encoded_powershell(argv, ctx.env)


def command_handler(windows: WindowsForm = call_operator, *, typed: bool = True, **constants: Any) -> HandlerFactory:
    """The handler of the agents whose entries are ``{"type": "command", "command", "timeout"}`` and differ only in
    their Windows form, a missing ``type`` (``typed=False``) or constant keys after the timeout."""

    def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
        argv = runtime_argv(ref, ctx)
        command = windows(argv, ctx) if ctx.windows else posix_command(argv)
        head = {"type": "command"} if typed else {}
        return {**head, "command": command, "timeout": ref.timeout, **constants}

    return make_handler


def exec_handler(
    *, status_messages: bool = False, standalone: Callable[[Ref, Context], bool] | None = None
) -> HandlerFactory:
    """The exec-form handler (``command`` is the interpreter, ``args`` the rest, no shell) of the agents that
    run ``{"type": "command", "command", "args", "timeout"}`` directly; ``status_messages`` adds the
    ``statusMessage`` of the role; where ``standalone`` says so, the launcher alone is the command (it starts
    its interpreter from its own ``#!`` line, so an agent that drops ``args`` still runs it)."""

    def make_handler(ref: Ref, ctx: Context) -> dict[str, Any]:
        argv = runtime_argv(ref, ctx)
        if standalone is not None and standalone(ref, ctx):
            argv = argv[-1:]
        handler: dict[str, Any] = {"type": "command", "command": argv[0], "args": argv[1:], "timeout": ref.timeout}
        if status_messages:
            handler["statusMessage"] = STATUS_MESSAGES[ref.role]
        return handler

    return make_handler


def legacy_command_only(
    keys: frozenset[str] = frozenset({"type", "command"}),
) -> Callable[[Mapping[str, Any], Context], Ref | None]:
    """Recognise the old ``{"type": "command", "command": "<python> <script>"}`` entries (any interpreter)."""

    def recognise(handler: Mapping[str, Any], ctx: Context) -> Ref | None:
        if set(handler) != keys or handler.get("type", "command") != "command":
            return None
        return next(iter(refs_in(handler, ctx)), None)

    return recognise


Recogniser = Callable[[Mapping[str, "Any"], Context], Ref | None]


def reference_command(keys: frozenset[str] = frozenset({"type", "command", "timeout"})) -> Recogniser:
    """Recognise the Python SDK installer's entries: keys exactly ``keys`` and a ``command`` that is exactly
    ``'<python>' '<script>'`` or ``& '<python>' '<script>'; exit $LASTEXITCODE`` (no interpreter flags)."""

    def recognise(handler: Mapping[str, Any], ctx: Context) -> Ref | None:
        if set(handler) != keys or handler.get("type") != "command":
            return None
        for ref in refs_in(handler, ctx):
            argv = [ref.python, str(script_path(ctx, ref.agent_id, ref.role))]
            if handler.get("command") in (posix_command(argv), powershell_call(argv)):
                return Ref(ref.agent_id, ref.role, ref.python, handler.get("timeout"))
        return None

    return recognise


def first_match(*recognisers: Recogniser) -> Recogniser:
    """The first recogniser that claims a handler decides."""

    def recognise(handler: Mapping[str, Any], ctx: Context) -> Ref | None:
        return next((ref for r in recognisers if (ref := r(handler, ctx)) is not None), None)

    return recognise


def validated(docs: Documents, path: Path, schema: MapSchema) -> Any:
    """The document value at ``path`` after whole-file validation (``None`` when absent)."""
    doc = docs.doc(path)
    if doc is None:
        return None
    validate_hookmap(doc.value, path, schema)
    return doc.value


def single_target(docs: Documents, schema: MapSchema) -> Path:
    """The provider's one target file, after whole-file validation of its content."""
    path = next(iter(docs.targets))
    validated(docs, path, schema)
    return path


def add_hooks(docs: Documents, path: Path, hm: HookMap, ctx: Context, agent_id: str) -> None:
    """Replace every agent's old entries with ours (install twice = install once)."""
    edit = docs.edit(path, docs.ensure(path))
    hookmap.remove(edit, hm, ctx)
    hookmap.add(edit, hm, ctx, agent_id)


def remove_hooks(docs: Documents, path: Path, hm: HookMap, ctx: Context, agent_ids: set[str] | None) -> None:
    """Remove our entries; delete the file when we created it and nothing of the user's remains."""
    doc = docs.doc(path)
    if doc is None:
        return
    hookmap.remove(docs.edit(path, doc), hm, ctx, agent_ids)
    if docs.was_created_by_us(path) and doc.value == docs.fresh_value(path):
        docs.delete(path)


def check_hooks(docs: Documents, path: Path, hm: HookMap, ctx: Context, agent_id: str) -> list[Finding]:
    findings = hookmap.check(docs.doc(path), hm, ctx, agent_id)
    for finding in findings:
        finding.path = path
    return findings


Disabler = Callable[[Documents], Setting | None]
Advice = Callable[[Setting, Path], str]
PlugFunctions = tuple[
    Callable[[Documents, Context, str], None],
    Callable[[Documents, Context, set[str] | None], None],
    Callable[[Documents, Context, str], list[Finding]],
]


def switched_plug(
    schema: MapSchema, hm: HookMap, agent: str, disabled_by: Disabler, advice: Advice = lambda setting, path: ""
) -> PlugFunctions:
    """``install``, ``uninstall`` and ``check`` of an agent whose one settings file holds ``hm`` and whose hooks
    a switch in some layer can turn off (``disabled_by`` finds it): install is refused naming that layer
    (``advice``: what else would re-enable them), status reports it, uninstall is never refused."""

    def install(docs: Documents, ctx: Context, agent_id: str) -> None:
        path = single_target(docs, schema)
        setting = disabled_by(docs)
        if setting is not None:
            reason = f"{agent} hooks are disabled: {setting.describe()}; remove it{advice(setting, path)} to install"
            raise RefusedError(setting.path, reason)
        add_hooks(docs, path, hm, ctx, agent_id)

    def uninstall(docs: Documents, ctx: Context, agent_ids: set[str] | None) -> None:
        remove_hooks(docs, single_target(docs, schema), hm, ctx, agent_ids)

    def check(docs: Documents, ctx: Context, agent_id: str) -> list[Finding]:
        path = single_target(docs, schema)
        setting = disabled_by(docs)
        findings = [switched_off(setting, agent, f"remove it{advice(setting, path)}")] if setting else []
        return findings + check_hooks(docs, path, hm, ctx, agent_id)

    return install, uninstall, check

