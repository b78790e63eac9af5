"""``elydora verify``: run every installed hook entry the way its agent would, and check the answers.

For each provider: ``status`` first (its problems are failures too), then every entry of ours read back from
the agent's config (:mod:`.entries`) is run with the agent's own argv (its shell, exec form or
``node`` file), working directory (the project), timeout and stdin (a sample payload of that agent and
event from ``verify_payloads.json``, else a minimal event). Guard entries are probed twice, with the agent
active (allow: exit 0 and the agent's success output) and frozen (the agent's block protocol); audit entries
once (exit 0, the success output, and the event recorded).

The status a probe sees, and where its audit record goes, is a scratch directory of the probe's own: a fresh
owner-only directory ``verify-probe.<128 random bits in hex>`` made inside the runtime's own directory (the
agent's state directory; under system scope the root-owned runtime directory) for the probe alone and removed
after it; the probe's environment names it by its random name only (``ELYDORA_VERIFY_PROBE``). The generated
runtime and ``elydora hook`` read ``status.json`` there instead of the agent's status, and spool there without
starting the flusher; they ignore a name that is not such a fresh directory. The agent's real state is only
read (``config.json``, and the enforcement inputs checked by :mod:`.health`: a missing, corrupt or too open
``status.json`` fails verify although the probes would pass) and no probe event reaches the ledger. A
``--hook-command`` supervisor must honour the variable the same way to pass (``docs/verify.md``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from elydora_config import _platform
from elydora_config.errors import ConfigError
from elydora_config.records import record

from .. import catalog, health, identity
from ..hookpayloads import payload
from ..plug.context import Context
from ..plug.layers import OFF
from ..statefiles import PROBE_ENV, PROBE_LIFETIME, PROBE_NAME_BYTES, PROBE_PREFIX
from . import operations
from .entries import Entry

SPOOL = "spool.jsonl"
WORKERS = 8


@record(frozen=True)
class Check:
    """One line of the report: a probe of one entry, or a problem found without running anything."""

    provider: str
    event: str
    probe: str
    """``allow``, ``block`` or ``audit``; ``-`` for a problem of the config or the runtime files; ``agent`` for
    what the agent itself says it loads (``codex app-server``)."""
    ok: bool
    reason: str = ""
    source: str | None = None
    exit_code: int | None = None
    elapsed_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "event": self.event,
            "probe": self.probe,
            "ok": self.ok,
            "reason": self.reason,
            "source": self.source,
            "exit_code": self.exit_code,
            "elapsed_ms": self.elapsed_ms,
        }


@record(frozen=True)
class Probe:
    provider: str
    entry: Entry
    kind: str
    payload: bytes
    timeout: float
    cwd: str | None
    base: str
    """The runtime's own directory, where the probe's scratch directory is made."""


# -- judging an answer ---------------------------------------------------------------------------------------


def _said(stderr: bytes) -> str:
    line = next((x.strip() for x in stderr.decode("utf-8", "replace").splitlines() if x.strip()), "")
    return f" (stderr: {line[:200]})" if line else ""


def _json_object(stdout: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(stdout)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _denies(answer: dict[str, Any]) -> bool:
    """Whether a JSON answer refuses the tool call in any agent's vocabulary."""
    specific = answer.get("hookSpecificOutput")
    return (
        answer.get("decision") in ("block", "deny")
        or answer.get("permission") == "deny"
        or answer.get("cancel") is True
        or answer.get("continue") is False
        or answer.get("permissionDecision") == "deny"
        or (isinstance(specific, dict) and specific.get("permissionDecision") == "deny")
    )


def _matches(answer: dict[str, Any], template: dict[str, Any]) -> str | None:
    """``None`` when ``answer`` has every member of the catalog ``template`` (a ``{message}``-like value only
    needs to be a non-empty string), else what is wrong."""
    for key, wanted in template.items():
        got = answer.get(key)
        templated = isinstance(wanted, str) and "{" in wanted
        if templated and not (isinstance(got, str) and got):
            return f"{key} must be a non-empty string, not {json.dumps(got)}"
        if not templated and got != wanted:
            return f"{key} is {json.dumps(got)}, expected {json.dumps(wanted)}"
    return None


def _success_problem(stdout: bytes, template: Any) -> str | None:
    """The answer of an allowed call: the agent's success output (a JSON object holding the catalog's members,
    or nothing when the catalog has none), never a refusal."""
    if not stdout.strip():
        return None if template is None else f"stdout is empty, expected {json.dumps(template)}"
    answer = _json_object(stdout)
    if answer is None:
        return f"stdout is not a JSON object: {stdout[:120]!r}"
    if _denies(answer):
        return f"stdout refuses the call: {stdout[:120]!r}"
    return _matches(answer, template) if isinstance(template, dict) else None


def _block_problem(facts: catalog.Provider, code: int, stdout: bytes, stderr: bytes) -> str | None:
    want = facts.guard.deny_exit_code
    if code != want:
        return f"exit {code}, expected {want} (the agent's block){_said(stderr)}"
    template = facts.guard.deny_stdout_template
    if template is None and not stderr.strip():
        return "blocked without a reason on stderr (the agent shows stderr)"
    if template is not None:
        answer = _json_object(stdout)
        if answer is None:
            return f"stdout is not the agent's JSON block answer: {stdout[:120]!r}"
        problem = _matches(answer, template)
        if problem is not None:
            return problem
    if b"frozen" not in (stdout + stderr).lower():  # exit 2 alone may be a crash (python: can't open file)
        return f"the block does not say the agent is frozen{_said(stderr)}"
    return None


def _recorded(scratch: str, sent: bytes) -> bool:
    """Whether the probe's scratch spool holds the event that was sent."""
    try:
        with open(os.path.join(scratch, SPOOL), encoding="utf-8") as spool:
            lines = [line.strip() for line in spool if line.strip()]
    except OSError:
        return False
    wanted = json.loads(sent)
    for line in lines:
        _, _, body = line.partition(" ")
        try:
            if json.loads(body) == wanted:
                return True
        except ValueError:
            continue
    return False


def judge(probe: Probe, code: int, stdout: bytes, stderr: bytes, scratch: str | None) -> str | None:
    """What is wrong with one answer (``None``: it is what the agent expects). ``scratch=None``: the hook ran
    against the agent's real state, and the caller checks the record in its ledger itself."""
    facts = catalog.provider(probe.provider)
    if probe.kind == "block":
        return _block_problem(facts, code, stdout, stderr)
    if code != 0:
        return f"exit {code}, expected 0{_said(stderr)}"
    if probe.kind == "allow":
        return _success_problem(stdout, facts.guard.success_stdout_template)
    problem = _success_problem(stdout, facts.audit.success_stdout_template)
    if problem is None and scratch is not None and not _recorded(scratch, probe.payload):
        problem = f"the event was not recorded (nothing in the probe's spool; a supervisor must honour {PROBE_ENV})"
    return problem


# -- running a probe -----------------------------------------------------------------------------------------


def _private_file(path: str, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _platform.O_NOFOLLOW | _platform.O_CLOEXEC
    fd = _platform.open_at(path, flags, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def execute(probe: Probe, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run the entry's argv in its own process group; the whole group is killed at the agent's timeout."""
    process = subprocess.Popen(
        probe.entry.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=probe.cwd,
        env=env,
        **_platform.NEW_SESSION,
    )
    try:
        stdout, stderr = process.communicate(probe.payload, timeout=probe.timeout)
    except subprocess.TimeoutExpired:
        _platform.kill_session(process)
        process.communicate()
        raise
    return process.returncode, stdout, stderr


def _result(probe: Probe, problem: str | None, code: int | None = None, elapsed: int | None = None) -> Check:
    entry = probe.entry
    reason = problem or ""
    return Check(probe.provider, entry.event, probe.kind, problem is None, reason, str(entry.source), code, elapsed)


def make_probe_dir(base: str, status: str) -> tuple[str, str]:
    """(name, path) of a new probe directory in ``base``: a random 128-bit name, owner-only, holding the
    ``status.json`` the probe decides from. Only a directory made this way, seconds ago, is honoured."""
    name = secrets.token_hex(PROBE_NAME_BYTES)
    path = os.path.join(base, PROBE_PREFIX + name)
    os.mkdir(path, 0o700)
    os.chmod(path, 0o700)  # whatever the umask
    _private_file(os.path.join(path, identity.STATUS), identity.status_bytes(status, "elydora verify"))
    return name, path


def remove_stale_probes(base: str, now: float | None = None) -> None:
    """Remove probe directories a killed verify left behind (the runtime no longer honours them anyway)."""
    moment = time.time() if now is None else now
    try:
        names = [n for n in os.listdir(base) if n.startswith(PROBE_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            if moment - os.stat(path, follow_symlinks=False).st_mtime > PROBE_LIFETIME:
                shutil.rmtree(path)
        except OSError:
            continue


def run_probe(probe: Probe) -> Check:
    """Run one probe against a scratch state of its own (``frozen`` for a block probe, else ``active``)."""
    status = "frozen" if probe.kind == "block" else "active"
    try:
        name, scratch = make_probe_dir(probe.base, status)
    except OSError as exc:
        return _result(probe, f"cannot make a probe directory in {probe.base}: {exc.strerror or exc}")
    try:
        env = {**os.environ, PROBE_ENV: name}
        started = time.monotonic()
        try:
            code, stdout, stderr = execute(probe, env)
        except subprocess.TimeoutExpired:
            return _result(probe, f"no answer within the agent's timeout of {probe.timeout:g} s")
        except OSError as exc:
            return _result(probe, f"cannot run {probe.entry.argv[0]}: {exc.strerror or exc}")
        elapsed = int((time.monotonic() - started) * 1000)
        return _result(probe, judge(probe, code, stdout, stderr, scratch), code, elapsed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


# -- one provider, then all ----------------------------------------------------------------------------------


def _events(provider: str, ctx: Context) -> tuple[tuple[str, str], ...]:
    """``(event, role)`` of every entry to probe. A supervisor records every event it gates, so where guard and
    audit share one event (Crush) its single entry is probed as the guard."""
    events = catalog.provider(provider).events
    if events.records_intent and ctx.hook_command:
        return ((events.pre_tool, "guard"),)
    return events.pairs


def plan(provider: str, ctx: Context) -> tuple[list[Check], list[Probe]]:
    """The problems found without running anything, and the probes to run, for one provider."""
    try:
        status = operations.status(provider, ctx)
        entries = operations.installed_entries(provider, ctx) if status.installed else []
    except (ConfigError, OSError) as exc:
        message = str(exc) if isinstance(exc, ConfigError) else f"{exc.filename}: {exc.strerror}"
        return [Check(provider, "-", "-", False, message)], []
    if not status.installed:
        return [Check(provider, "-", "-", False, f"not installed (run: elydora install {provider})")], []
    problems = [
        Check(provider, "config", "-", False, f.render()) for f in status.findings if f.severity in ("error", OFF)
    ]
    if not ctx.system:  # under system scope the guard's inputs are the root-owned policy, checked by status
        agent_dir = str(ctx.agent_dir(status.agent_id))
        found = health.check(agent_dir)
        whys = found.enforcement + ([found.tampered] if found.tampered else [])
        problems += [Check(provider, "state", "-", False, why) for why in whys]
    cwd = str(ctx.repo_root) if ctx.repo_root.is_dir() else None
    base = str(ctx.runtime_dir(status.agent_id))
    remove_stale_probes(base)
    probes = []
    for event, role in _events(provider, ctx):
        mine = [e for e in entries if e.event == event and e.role == role]
        if not mine:
            problems.append(Check(provider, event, "-", False, "no Elydora handler for it in the agent's config"))
        for entry in mine:
            kinds = ("allow", "block") if role == "guard" else ("audit",)
            timeout = entry.timeout if entry.timeout else float(ctx.timeout_seconds)
            sent = payload(provider, event, cwd or str(ctx.repo_root))
            probes += [Probe(provider, entry, kind, sent, timeout, cwd, base) for kind in kinds]
    return problems, probes


def verify(
    providers: list[str], ctx: Context, *, workers: int = WORKERS, contexts: dict[str, Context] | None = None
) -> list[Check]:
    """Every provider's checks, in provider then event order (the probes run in parallel); ``contexts``: a
    provider's own context (the options its install remembered) instead of ``ctx``."""
    plans = [plan(provider, (contexts or {}).get(provider, ctx)) for provider in providers]
    probes = [probe for _, todo in plans for probe in todo]
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(probes)))) as pool:
        results = iter(list(pool.map(run_probe, probes)))
    checks: list[Check] = []
    for problems, todo in plans:
        checks += problems
        checks += [next(results) for _ in todo]
    return checks
