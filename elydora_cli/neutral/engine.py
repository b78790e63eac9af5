"""One hook call: decode the request, take the guard's decision, audit the event, answer.

The decision is the guard's: a frozen or revoked agent is refused the events that ask whether a tool may
run (:data:`~.contract.GATED_EVENTS`); every other event, and every event of an active agent, is allowed.
Every accepted event is appended to the agent's spool like the audit hook's, and the flusher records it.

The answer is either the neutral v1 document (exit 0 allow, 1 deny; any failure is an error: nothing on
stdout, exit 1) or the agent's native protocol from the catalog (its deny exit code and output, its
success output, and its failure mode when the request or the agent state is broken).
"""

from __future__ import annotations

import os
import time
from typing import Any

from elydora_config.errors import ConfigError
from elydora_config.records import record, replace

from .. import catalog
from .agentstate import AgentDir, AgentState, agent_directory, probe_directory, read_state
from .audit import append_event as spool_event
from .audit import spool_body, start_flusher
from .contract import ADAPTERS, GATED_EVENTS, MAX_INPUT_BYTES, ContractError, resolve_provider
from .request import HookRequest, parse_request
from .response import Outcome, build_response, encode, exit_code, new_hook_id

POLICY_ID = "elydora.agent_status"


@record(frozen=True)
class Selection:
    """Where the answering agent lives and how it is named (the command-line flags)."""

    state_root: str
    python: str
    provider: str | None = None
    agent_id: str | None = None


@record(frozen=True)
class Answer:
    stdout: bytes
    stderr: bytes
    exit_code: int


def catalog_id(hint: str) -> str | None:
    """The catalog provider a hint names: a catalog id itself, or a contract provider (``claude``...)."""
    lowered = hint.strip().lower()
    if lowered in catalog.provider_ids():
        return lowered
    named = resolve_provider(lowered)
    return ADAPTERS.get(named) if named is not None else None


def _decide(data: bytes, selection: Selection, provider_id: str | None, gated: bool) -> tuple[AgentState, bool]:
    """(agent state, blocked) after spooling the event; raises when the state cannot be read."""
    agent_id = selection.agent_id or provider_id
    if not agent_id:
        raise ContractError(
            "no agent answers this hook: the request names no Elydora provider; pass --provider <id> or --agent-id"
        )
    with AgentDir(agent_directory(selection.state_root, agent_id)) as agent:
        scratch, ignored = probe_directory(agent)
        if ignored is not None:  # a planted variable: the real state decides and the event is recorded
            _log(agent.path, "hook", f"ignored: {ignored}")
        if scratch is not None:  # an `elydora verify` probe: its own status, its own spool, no flusher
            with AgentDir(scratch) as probe:
                state = read_state(agent, provider_id=provider_id, python=selection.python, status_from=probe)
                spool_event(probe, spool_body(data))
            return state, gated and state.status != "active"
        state = read_state(agent, provider_id=provider_id, python=selection.python)
        spool_event(agent, spool_body(data))
        problem = start_flusher(agent, selection.python)
        if problem is not None:
            _log(agent.path, "audit", problem)
    return state, gated and state.status != "active"


def _log(directory: str, component: str, message: str) -> None:
    from ..runtime.errorlog import log_error  # a failure path: the hook's own path loads no runtime package

    log_error(directory, component, message)


def _block_status(state: AgentState) -> catalog.BlockStatus:
    return "revoked" if state.status == "revoked" else "frozen"


def _block_reason(state: AgentState) -> str:
    facts = catalog.provider(state.provider_id)
    return facts.guard_stderr(_block_status(state)).removeprefix(catalog.guard_error_prefix())


def _blocked(state: AgentState) -> Outcome:
    reason = _block_reason(state)
    decision: dict[str, Any] = {
        "evidence": {"agent_id": state.agent_id, "status": state.status, "source": state.source},
        "decision": "block",
        "message": reason,
        "policy_id": POLICY_ID,
        "severity": "block",
    }
    return Outcome(blocked=True, reason=reason, decisions=(decision,), tracking_id=new_hook_id())


def run_neutral(data: bytes, selection: Selection, started: float | None = None) -> Answer:
    """The neutral v1 answer to one request; :class:`ContractError` (or another error) on any failure."""
    begin = time.perf_counter() if started is None else started
    request: HookRequest = parse_request(data)
    if selection.provider:
        request = request.with_provider(selection.provider)
    provider_id = catalog_id(request.provider_hint) if request.provider_hint else None
    state, blocked = _decide(data, selection, provider_id, request.hook_event_name in GATED_EVENTS)
    outcome = _blocked(state) if blocked else Outcome()
    outcome = replace(outcome, runtime_ms=int((time.perf_counter() - begin) * 1000))
    doc = build_response(request, outcome)
    return Answer(encode(doc), b"", exit_code(doc))


def run_native(data: bytes, selection: Selection) -> Answer:
    """The agent's own protocol (deny, success and failure behaviour from the catalog)."""
    facts = catalog.provider(selection.provider) if selection.provider else None
    try:
        request = parse_request(data)
    except ContractError as exc:
        if facts is None:
            raise
        _record_gap(data, selection, facts.id, exc.message)
        return _failure(facts, True, exc.message, None)
    if facts is None:
        pid = catalog_id(request.provider_hint or request.source)
        if pid is None:
            raise ContractError(
                "provider-native output needs the agent's protocol: pass --provider <id>"
                " (or --contract neutral-v1 for the neutral document)"
            )
        facts = catalog.provider(pid)
    event = request.hook_event_name
    gated = not event or event in GATED_EVENTS or _spelled_alike(event, facts.events.pre_tool)
    directory: str | None = None
    try:
        directory = agent_directory(selection.state_root, selection.agent_id or facts.id)
        state, blocked = _decide(data, selection, facts.id, gated)
    except (ConfigError, OSError) as exc:
        message = str(exc) if isinstance(exc, ConfigError) else f"{exc.filename or 'I/O'}: {exc.strerror or exc}"
        return _failure(facts, gated, message, directory)
    if blocked:
        status = _block_status(state)
        stderr = (facts.guard_stderr(status) + "\n").encode("utf-8")
        return Answer(facts.deny_stdout(status), stderr, facts.guard.deny_exit_code)
    return Answer(facts.guard.success_stdout if gated else facts.audit.success_stdout, b"", 0)


def _record_gap(data: bytes, selection: Selection, provider_id: str, problem: str) -> None:
    """A request that cannot be read still leaves a signed trace: the audit hook's gap event (its size, the
    SHA-256 of what was read, the reason, the tool name when it can be read), spooled for the flusher (or into
    a verify probe's scratch spool). Best effort: an agent that cannot be opened gets the failure mode alone."""
    from ..runtime.templates.gapevent import gap_line  # a failure path, as above

    reason = "too_large" if len(data) > MAX_INPUT_BYTES else "not_json"
    body = gap_line(reason, problem, data, len(data), None, provider_id)
    try:
        with AgentDir(agent_directory(selection.state_root, selection.agent_id or provider_id)) as agent:
            scratch, ignored = probe_directory(agent)
            if ignored is not None:
                _log(agent.path, "hook", f"ignored: {ignored}")
            if scratch is not None:
                with AgentDir(scratch) as probe:
                    spool_event(probe, body)
                return
            spool_event(agent, body)
            start_flusher(agent, selection.python)
    except (ConfigError, OSError):
        return


def _spelled_alike(event: str, name: str) -> bool:
    """The agent's pre-tool event in another spelling of its own (Grok's payload says ``pre_tool_use``)."""
    return event.replace("_", "").casefold() == name.replace("_", "").casefold()


def _failure(facts: catalog.Provider, gated: bool, message: str, directory: str | None) -> Answer:
    """The provider's failure mode: fail-open answers as on success (exit 0), fail-closed exits 1."""
    if gated:
        mode: catalog.GuardFacts | catalog.AuditFacts = facts.guard
        prefix, component = catalog.guard_error_prefix(), "guard"
    else:
        mode = facts.audit
        prefix, component = catalog.audit_error_prefix(), "audit"
    if directory is not None and os.path.isdir(directory):
        _log(directory, component, message)
    return Answer(mode.failure_stdout, f"{prefix}{message}\n".encode(), mode.failure_exit_code)
