"""What the installed runtime of one agent will actually do: enforce (the guard's inputs) and record (audit).

``status`` and ``verify`` check the entries and files an install wrote; this module checks what decides the
answer of the running hooks, exactly as the generated guard reads it:

- the enforcement inputs ``config.json`` and ``status.json`` (a server-bound agent: ``status-cache.json``)
  are regular, owner-only, bounded and valid in the guard's own flat-JSON grammar; otherwise the guard falls
  into the provider's failure mode (for most agents: allow every call) and the agent is *unguarded*;
- the agent state (``active``/``frozen``/``revoked``) the guard applies, and for a local agent whether
  ``status.json`` lifts a freeze or revocation the signed history records (*tampered*, :mod:`.statehistory`);
- a server-bound agent's status cache: its age, and a date in the future (a clock set back or a forged file:
  the guard counts such a cache as stale and asks the server again);
- the local audit delivery: events spooled past the delivered offset, the age of the oldest, whether a
  flusher runs, the last delivery error of ``error.log``; events waiting longer than :data:`STALL_SECONDS`
  with no flusher running make the agent *unaudited*, and so does a flusher that cannot start (named at once)
  and a chain state that disagrees with the ledger (``runtime/chaincheck.py``: entries removed, a corrupted
  head; the flusher stops then);
- the trace: gap entries and records written since ``audit verify`` last showed them, and the events the host
  check skipped or did not recognise (``runtime/trace.py``).

Every read is bounded and refuses FIFOs, devices and links without blocking. Nothing is written.
"""

from __future__ import annotations

import os
import re
import stat
import time
from typing import TYPE_CHECKING

from elydora_config import _platform
from elydora_config.errors import ConfigError
from elydora_config.records import field, record

from . import statefiles as names
from .readpass import DIRECT, Reads
from .runtime import chaincheck, dropmark, state, trace
from .runtime.templates.flatreader import parse_flat_object
from .statehistory import lifted

if TYPE_CHECKING:
    from typing import Any

STALL_SECONDS = 60.0
"""Undelivered events older than this with no flusher running mean the audit does not record."""
INPUT_LIMIT = 512 << 10
"""The guard's own cap on the files it reads (``FILE_LIMIT`` of the guard template)."""
SPOOL_SCAN_LIMIT = 64 << 20
"""At most this much undelivered spool is scanned to count events (the count is then a lower bound)."""
ERROR_TAIL = 64 << 10
DELIVERY_COMPONENTS = ("flush", "deliver", "client")
START_FAILURE = "cannot start the flusher"
"""What the audit hook's boot code logs when its interpreter cannot import the flusher (``templates/hook.py``)."""


@record
class AuditHealth:
    spooled: int = 0
    """Complete events in ``spool.jsonl`` past the delivered offset (a lower bound beyond the scan limit)."""
    oldest_undelivered_age_seconds: float | None = None
    flusher_alive: bool = False
    last_delivery_error: str | None = None
    dropped: int = 0
    """Events the audit hook could not spool (disk full) and recorded as dropped."""
    gaps: int = 0
    """Ledger entries standing for an event that is not there whole (gap entries and gap records)."""
    gaps_unreviewed: int = 0
    """Of those, the ones written since ``elydora audit verify`` last showed them (status: ``audit gaps``)."""
    host_check: dict[str, int] = field(default_factory=dict)
    """``host-check.log``: events of other agents skipped (``foreign``), events without the host's marks
    decided and recorded as the host's (``unrecognised``)."""
    server: dict[str, Any] | None = None
    """Server-bound delivery health (filled by the server delivery module; ``None`` for a local agent)."""
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        age = self.oldest_undelivered_age_seconds
        return {
            "spooled": self.spooled,
            "oldest_undelivered_age_seconds": None if age is None else round(age, 1),
            "flusher_alive": self.flusher_alive,
            "last_delivery_error": self.last_delivery_error,
            "dropped": self.dropped,
            "gaps": self.gaps,
            "gaps_unreviewed": self.gaps_unreviewed,
            "host_check": dict(self.host_check),
            "server": self.server,
            "problems": list(self.problems),
        }


@record
class Health:
    agent_state: str | None
    """``active``, ``frozen`` or ``revoked`` as the guard will apply it; ``None`` when it cannot decide."""
    enforcement: list[str] = field(default_factory=list)
    """Why the guard falls into its failure mode instead of deciding (empty: it enforces)."""
    audit: AuditHealth = field(default_factory=AuditHealth)
    status_cache: dict[str, Any] | None = None
    """A server-bound agent: ``{"age_seconds", "checked_age_seconds", "skew_seconds", "last_refresh_error"}``
    of its cache."""
    tampered: str | None = None
    """A local agent whose ``status.json`` is milder than the status its signed history records: why."""

    @property
    def enforced(self) -> bool:
        return not self.enforcement and self.agent_state is not None and self.tampered is None

    @property
    def audited(self) -> bool:
        return not self.audit.problems


def check(agent_dir: str, *, now: float | None = None, reads: Reads = DIRECT) -> Health:
    """The runtime health of the agent whose state directory is ``agent_dir``."""
    problems: list[str] = []
    config = _input(agent_dir, names.CONFIG, problems, reads)
    state: str | None = None
    if config is not None:
        problems += _config_problems(agent_dir, config)
    server = config is not None and config.get("base_url") is not None
    status_name = names.STATUS_CACHE if server else names.STATUS
    status = _input(agent_dir, status_name, problems, reads)
    if status is not None:
        value = status.get("status")
        if value in names.STATUSES:
            state = str(value)
        else:
            problems.append(f"{os.path.join(agent_dir, status_name)}: has no valid status")
    if server and status is None and not any(status_name in p for p in problems):
        problems.append(f"{os.path.join(agent_dir, status_name)}: no server status cached yet")
    cache = _cache_facts(agent_dir, status, time.time() if now is None else now) if server else None
    if cache is not None and cache["skew_seconds"]:
        problems.append(_skew_problem(agent_dir, cache["skew_seconds"]))
    result = Health(state, problems, audit_health(agent_dir, now=now, reads=reads), cache)
    if not server and config is not None:
        result.tampered = lifted(agent_dir, state)
    return result


SKEW_TOLERANCE = 1.0
"""Seconds a cache may be dated ahead of this clock (the rounding of the file's whole seconds) before it counts
as dated in the future."""


def _cache_facts(agent_dir: str, cache: dict[str, object] | None, now: float) -> dict[str, Any]:
    def age(key: str) -> float | None:
        value = cache.get(key) if cache else None
        return round(now - value, 1) if isinstance(value, (int, float)) else None

    ages = {"age_seconds": age("cached_at"), "checked_age_seconds": age("checked_at")}
    ahead = max((-a for a in ages.values() if a is not None), default=0.0)
    return {
        **{key: None if value is None else max(0.0, value) for key, value in ages.items()},
        "skew_seconds": round(ahead, 1) if ahead > SKEW_TOLERANCE else None,
        "last_refresh_error": last_error(agent_dir, ("refresh",)),
    }


def _skew_problem(agent_dir: str, skew: float) -> str:
    return (
        f"{os.path.join(agent_dir, names.STATUS_CACHE)}: is dated {int(skew)} s in the future (the clock was set "
        "back, or the file was written by hand): the guard counts it as stale and asks the server again"
    )


def _config_problems(agent_dir: str, config: dict[str, object]) -> list[str]:
    path = os.path.join(agent_dir, names.CONFIG)
    if not set(config) <= set(names.CONFIG_KEYS):
        return [f"{path}: has unknown keys"]
    if config.get("agent_id") != os.path.basename(agent_dir):
        return [f"{path}: agent_id does not match its directory"]
    return []


def read_input(agent_dir: str, name: str, *, reads: Reads = DIRECT) -> dict[str, object] | None:
    """One enforcement input parsed as the guard parses it (``None``: absent); :class:`InputError` otherwise."""
    path = os.path.join(agent_dir, name)
    try:
        result = reads.read_physical_stat(path, max_bytes=INPUT_LIMIT)
    except ConfigError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if result is None:
        return None
    if not _platform.is_private(result.stat):
        raise InputError(f"{path}: is accessible by other users (run chmod 600 on it)")
    if not _platform.owned_by_caller(result.stat) and not _platform.is_superuser():
        raise InputError(f"{path}: is owned by another user (uid {result.stat.st_uid})")
    try:
        return parse_flat_object(result.data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: is not valid: {exc}") from None


class InputError(Exception):
    """An enforcement input the guard cannot use (the message names the file)."""


def _input(agent_dir: str, name: str, problems: list[str], reads: Reads) -> dict[str, object] | None:
    try:
        value = read_input(agent_dir, name, reads=reads)
    except InputError as exc:
        problems.append(str(exc))
        return None
    if value is None:
        problems.append(f"{os.path.join(agent_dir, name)}: is missing")
    return value


# -- audit delivery ------------------------------------------------------------------------------------------


def audit_health(agent_dir: str, *, now: float | None = None, reads: Reads = DIRECT) -> AuditHealth:
    health = AuditHealth()
    now = time.time() if now is None else now
    offset, health.gaps = _saved_state(agent_dir, reads)
    health.gaps_unreviewed = max(0, health.gaps - trace.reviewed_gaps(agent_dir, reads=reads))
    health.host_check = trace.host_counts(agent_dir, reads=reads)
    disagreement = chaincheck.disagreement(agent_dir, reads=reads)
    if disagreement is not None:
        health.problems.append(chaincheck.describe(disagreement))
    spool_path = os.path.join(agent_dir, names.SPOOL)
    health.spooled, oldest_ms = _undelivered(spool_path, offset, health)
    if oldest_ms is not None:
        health.oldest_undelivered_age_seconds = max(0.0, now - oldest_ms / 1000)
    health.flusher_alive = flusher_alive(agent_dir)
    health.last_delivery_error = last_error(agent_dir, DELIVERY_COMPONENTS)
    health.dropped = dropmark.pending_drops(agent_dir)
    age = health.oldest_undelivered_age_seconds
    start = last_error(agent_dir, ("flush", "audit")) if health.spooled and not health.flusher_alive else None
    if start is not None and START_FAILURE in start and _logged_since(start, oldest_ms):  # named at once
        health.problems.append(f"{spool_path}: {health.spooled} event(s) undelivered: {start}")
    elif health.spooled and age is not None and age > STALL_SECONDS and not health.flusher_alive:
        why = f"; last delivery error: {health.last_delivery_error}" if health.last_delivery_error else ""
        health.problems.append(
            f"{spool_path}: {health.spooled} event(s) undelivered, the oldest {int(age)} s old, and no flusher "
            f"is running (run: elydora audit flush){why}"
        )
    return health


def _logged_since(line: str, since_ms: int | None) -> bool:
    """Whether an ``error.log`` line (``last_error`` form: its UTC stamp first) was written at or after the
    receipt of the oldest undelivered event (a second of slack), so an old failure is not blamed again."""
    stamp = line.partition(" ")[0]
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp) is None:
        return False
    return since_ms is None or stamp >= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since_ms // 1000 - 1))


def _saved_state(agent_dir: str, reads: Reads) -> tuple[int, int]:
    """(delivered spool offset, gap count) of ``chain-state.json``; (0, 0) when it cannot be read (the chain
    check reports why)."""
    try:
        saved = state.load(agent_dir, reads=reads)
    except (ConfigError, OSError):
        return 0, 0
    return saved.spool_offset, saved.gaps


def _undelivered(path: str, offset: int, health: AuditHealth) -> tuple[int, int | None]:
    """(complete events past ``offset``, receipt ms of the first), reading at most the scan limit."""
    try:
        fd = _platform.open_at(path, os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC)
    except FileNotFoundError:
        return 0, None
    except OSError as exc:
        health.problems.append(f"{path}: cannot be read: {exc.strerror}")
        return 0, None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            health.problems.append(f"{path}: is not a regular file")
            return 0, None
        data = _platform.pread(fd, SPOOL_SCAN_LIMIT, offset)
    finally:
        os.close(fd)
    complete = data[: data.rfind(b"\n") + 1]
    lines = [line for line in complete.split(b"\n") if line.strip()]
    first = lines[0].partition(b" ")[0] if lines else b""
    return len(lines), int(first) if first.isdigit() else None


def flusher_alive(agent_dir: str) -> bool:
    """Whether a process holds ``flush.lock``: asked of the system where it says without taking the lock (Linux),
    so that the probe never takes the lock the audit hook tests before it starts a flusher; elsewhere (Windows,
    macOS) a non-blocking probe of the lock, held for the moment of the test."""
    path = os.path.join(agent_dir, names.FLUSH_LOCK)
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = _platform.flock_held(info)
    if held is not None:
        return held
    return _probe_lock(path)


def _probe_lock(path: str) -> bool:
    # The fallback where the system does not say: status loads no fcntl otherwise.
    from elydora_config._platform import locking

    try:
        fd = _platform.open_at(path, os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC)
    except OSError:
        return False
    try:
        locking.flock(fd, locking.LOCK_EX_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def last_error(agent_dir: str, components: tuple[str, ...]) -> str | None:
    """The last ``error.log`` line written by one of ``components`` (time and message), if any."""
    path = os.path.join(agent_dir, names.ERROR_LOG)
    try:
        fd = _platform.open_at(path, os.O_RDONLY | _platform.O_NOFOLLOW | _platform.O_NONBLOCK | _platform.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        tail = _platform.pread(fd, ERROR_TAIL, max(0, info.st_size - ERROR_TAIL))
    finally:
        os.close(fd)
    for raw in reversed(tail.decode("utf-8", "replace").splitlines()):
        stamp, _, rest = raw.partition(" [elydora-hook] ")
        component = rest.partition(":")[0]
        if component in components:
            return f"{stamp} {rest}"
    return None
