"""Typed access to ``catalog.json``: the provider facts the runtime and the installer share.

The catalog is the single source of provider ids, event names, deny protocols and failure modes. Output
templates are JSON values whose strings may contain ``{message}`` (the block message) or ``{stderr}`` (the
whole guard stderr line); :meth:`GuardFacts.deny_stdout` renders them as one compact JSON line.
``guard.deny`` is always what the agent sees; where the agent runs a wrapper in front of the generated guard
(Cline), ``guard.runtime_deny`` says what the guard itself does so that the wrapper can translate it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING

from elydora_config.errors import ConfigError
from elydora_config.records import record, replace

from . import packagedata

if TYPE_CHECKING:
    from typing import Any, Literal

    FailureMode = Literal["open", "closed"]
    BlockStatus = Literal["frozen", "revoked"]
FAILURE_EXIT_CODE = 1
"""Exit code of a fail-closed runtime on its own errors (fail-open runtimes exit 0)."""


class UnknownProviderError(ConfigError):
    """A provider id that the catalog does not list."""


@record(frozen=True)
class Events:
    pre_tool: str
    post_tool: str | None
    """``None``: the agent has no post-tool event (Crush); the audit then runs on the pre-tool event too and
    records the intent, the call as it was about to run, not its result."""
    post_tool_failure: str | None

    @property
    def records_intent(self) -> bool:
        return self.post_tool is None

    @property
    def audit_events(self) -> tuple[str, ...]:
        if self.post_tool is None:
            return (self.pre_tool,)
        return tuple(e for e in (self.post_tool, self.post_tool_failure) if e is not None)

    @property
    def hooked(self) -> tuple[str, ...]:
        """Every event our entries are on, once each, in catalog order."""
        return tuple(dict.fromkeys((self.pre_tool, *self.audit_events)))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """``(event, role)`` of every entry we install: the pre-tool guard, then the audits."""
        return ((self.pre_tool, "guard"), *((event, "audit") for event in self.audit_events))


@record(frozen=True)
class Timeout:
    value: int
    unit: Literal["s", "ms"]


@record(frozen=True)
class ConfigFacts:
    env: str | None
    default_path: str
    format: str
    timeout: Timeout | None


def render_output(template: Any, *, message: str = "", stderr: str = "") -> bytes:
    """One compact JSON line from an output template (``{message}``/``{stderr}`` substituted)."""
    value = _substitute(template, message, stderr)
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def _substitute(value: Any, message: str, stderr: str) -> Any:
    if isinstance(value, str):
        return value.replace("{message}", message).replace("{stderr}", stderr)
    if isinstance(value, dict):
        return {k: _substitute(v, message, stderr) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, message, stderr) for v in value]
    return value


@record(frozen=True)
class AuditFacts:
    """What a hook prints when it succeeds, and how it fails (the audit hook needs nothing more)."""

    success_stdout_template: Any
    failure_mode: FailureMode

    @property
    def success_stdout(self) -> bytes:
        return b"" if self.success_stdout_template is None else render_output(self.success_stdout_template)

    @property
    def failure_exit_code(self) -> int:
        return 0 if self.failure_mode == "open" else FAILURE_EXIT_CODE

    @property
    def failure_stdout(self) -> bytes:
        """Fail-open runtimes still print the success output; fail-closed ones print nothing."""
        return self.success_stdout if self.failure_mode == "open" else b""


@record(frozen=True)
class GuardFacts(AuditFacts):
    """The audit facts plus the agent's deny protocol."""

    deny_exit_code: int = 2
    deny_stdout_template: Any = None

    def deny_stdout(self, message: str, stderr_line: str) -> bytes:
        if self.deny_stdout_template is None:
            return b""
        return render_output(self.deny_stdout_template, message=message, stderr=stderr_line)


@record(frozen=True)
class HostMarks:
    """The runtime acts only when the payload names every member in ``payload_keys`` and the environment
    holds none of ``foreign_env`` (variables another agent sets for every hook it runs)."""

    payload_keys: tuple[str, ...]
    foreign_env: tuple[str, ...]


@record(frozen=True)
class Provider:
    id: str
    display_name: str
    events: Events
    config: ConfigFacts
    guard: GuardFacts
    audit: AuditFacts
    runtime_guard: GuardFacts | None = None
    aliases: tuple[str, ...] = ()
    """Other names the CLI accepts for the id (``claude``, ``auggie``, ``factory``...)."""
    executables: tuple[str, ...] = ()
    """The agent's command names: one on ``PATH`` means the agent is present on the machine."""
    host: HostMarks | None = None
    """How the runtime tells its own agent from another that runs the same entries (catalog key ``host``);
    ``None``: the entries are read by this agent only."""
    """What the generated guard itself does when a wrapper the agent runs stands in front of it (catalog key
    ``guard.runtime_deny``: Cline's Node hook files turn the guard's exit 2 into the agent's cancel JSON);
    ``None``: the guard speaks the agent's protocol (``guard``) directly."""
    on_request: bool = False
    """Installed only when named (never by ``install --all``): a form of an agent that another provider covers
    by default (Kiro CLI's v2 custom agent)."""

    @property
    def guard_runtime(self) -> GuardFacts:
        return self.runtime_guard or self.guard

    def block_message(self, status: BlockStatus) -> str:
        return str(_messages()["block"]).format(provider=self.id, status=status)

    def guard_stderr(self, status: BlockStatus) -> str:
        """The one stderr line (without newline) of a blocked tool call."""
        return str(_messages()["guard_stderr"]).format(message=self.block_message(status))

    def deny_stdout(self, status: BlockStatus) -> bytes:
        """What the agent reads on stdout when a tool call is blocked."""
        return self.guard.deny_stdout(self.block_message(status), self.guard_stderr(status))

    def runtime_deny_stdout(self, status: BlockStatus) -> bytes:
        """What the generated guard prints on stdout when it blocks (differs only behind a wrapper)."""
        return self.guard_runtime.deny_stdout(self.block_message(status), self.guard_stderr(status))


def guard_error_prefix() -> str:
    return str(_messages()["guard_error_prefix"])


def audit_error_prefix() -> str:
    return str(_messages()["audit_error_prefix"])


@cache
def _raw() -> dict[str, Any]:
    text = packagedata.read_text("catalog.json")
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("schema") != 1:
        raise ConfigError("catalog.json", "unsupported catalog schema")
    return data


def _messages() -> dict[str, Any]:
    messages = _raw()["messages"]
    assert isinstance(messages, dict)
    return messages


def _timeout(raw: Any) -> Timeout | None:
    return None if raw is None else Timeout(int(raw["value"]), raw["unit"])


def _provider(raw: dict[str, Any]) -> Provider:
    ev, cfg, guard, audit = raw["events"], raw["config"], raw["guard"], raw["audit"]
    guard_facts = GuardFacts(
        success_stdout_template=guard["success_stdout"],
        failure_mode=guard["failure_mode"],
        deny_exit_code=int(guard["deny"]["exit_code"]),
        deny_stdout_template=guard["deny"]["stdout"],
    )
    runtime_deny = guard.get("runtime_deny")
    runtime_guard = (
        replace(guard_facts, deny_exit_code=int(runtime_deny["exit_code"]), deny_stdout_template=runtime_deny["stdout"])
        if runtime_deny is not None
        else None
    )
    return Provider(
        id=raw["id"],
        display_name=raw["display_name"],
        events=Events(ev["pre_tool"], ev["post_tool"], ev["post_tool_failure"]),
        config=ConfigFacts(cfg["env"], cfg["default_path"], cfg["format"], _timeout(cfg["timeout"])),
        guard=guard_facts,
        audit=AuditFacts(audit["success_stdout"], audit["failure_mode"]),
        runtime_guard=runtime_guard,
        aliases=tuple(raw.get("aliases", ())),
        executables=tuple(raw.get("executables", ())),
        on_request=bool(raw.get("on_request", False)),
        host=_host(raw.get("host")),
    )


def _host(raw: Any) -> HostMarks | None:
    return None if raw is None else HostMarks(tuple(raw["payload_keys"]), tuple(raw["foreign_env"]))


@cache
def providers() -> tuple[Provider, ...]:
    """Every provider, in catalog order."""
    return tuple(_provider(p) for p in _raw()["providers"])


def provider_ids() -> tuple[str, ...]:
    return tuple(p.id for p in providers())


def provider(provider_id: str) -> Provider:
    """The facts of ``provider_id``; :class:`UnknownProviderError` for an id the catalog does not list."""
    for candidate in providers():
        if candidate.id == provider_id:
            return candidate
    raise _unknown(provider_id)


def canonical_id(name: str) -> str:
    """The provider id that ``name`` (an id or one of its aliases, any case) stands for; else
    :class:`UnknownProviderError` with a "did you mean" when the name is close to one."""
    wanted = name.strip().lower()
    for candidate in providers():
        if wanted == candidate.id or wanted in candidate.aliases:
            return candidate.id
    raise _unknown(name)


def _unknown(name: str) -> UnknownProviderError:
    import difflib

    names = {n: p.id for p in providers() for n in (p.id, *p.aliases)}
    close = difflib.get_close_matches(name.lower(), list(names), n=1, cutoff=0.6)
    hint = f"; did you mean {names[close[0]]!r}?" if close else ""
    known = ", ".join(provider_ids())
    return UnknownProviderError(None, f"unknown provider {name!r}{hint} (known: {known})")
