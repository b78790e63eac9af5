"""What ``status`` shows of drift repair: the timer that runs it, and the log of its runs (light: no process, no
plist reader, no clock; :mod:`.repair` runs the repair, :mod:`.repairtimer` makes the timer).

The repair log (:data:`LOG`) has one JSON line per run, ``{"at", "checked", "restored", "errors"}``; the timer's
record (:data:`TIMER_RECORD`) says which files make the timer and what it runs, as ``--timer on`` wrote them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import repairunits
from .plug.context import Context

if TYPE_CHECKING:
    from typing import Any

LOG = "repair.log"
LOG_LIMIT = 256 << 10
"""The log keeps its last lines under this size (one line a run: an hourly timer adds about 2 MiB a year)."""
KEEP_LINES = 500
TIMER_RECORD = "repair-timer.json"


def log_path(ctx: Context) -> Path:
    return ctx.elydora_dir / LOG


def timer_record_path(ctx: Context) -> Path:
    return ctx.elydora_dir / TIMER_RECORD


def _owner_only(path: Path, data: str) -> None:
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        stream.write(data)
    os.replace(temporary, path)


def append_log(ctx: Context, run: dict[str, Any]) -> None:
    """One line for the run, owner-only; the oldest lines go once the log passes :data:`LOG_LIMIT`."""
    path = log_path(ctx)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as stream:
        stream.write(json.dumps(run, sort_keys=True) + "\n")
        size = stream.tell()
    if size > LOG_LIMIT:
        with open(path, encoding="utf-8") as stream:
            lines = stream.read().splitlines(keepends=True)[-KEEP_LINES:]
        _owner_only(path, "".join(lines))


def last_runs(ctx: Context, count: int = 1) -> list[dict[str, Any]]:
    """The last ``count`` runs in the log (newest last); unreadable lines are skipped."""
    try:
        with open(log_path(ctx), encoding="utf-8") as stream:
            lines = stream.read().splitlines()[-count:]
    except OSError:
        return []
    found = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def record_timer(ctx: Context, kind: str, files: list[str], command: list[str]) -> None:
    ctx.elydora_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(timer_record_path(ctx), json.dumps({"kind": kind, "files": files, "command": command}, indent=2))


def forget_timer(ctx: Context) -> None:
    timer_record_path(ctx).unlink(missing_ok=True)


def _timer(ctx: Context) -> dict[str, Any] | None:
    try:
        with open(timer_record_path(ctx), encoding="utf-8") as stream:
            value = json.load(stream)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as stream:
            return stream.read()
    except OSError:
        return None


def _timer_problems(ctx: Context, timer: dict[str, Any]) -> list[str]:
    """What is wrong with a recorded timer: it must be, byte for byte, what ``--timer on`` writes, running
    ``elydora repair`` and nothing else (an edited timer would run any command under our name)."""
    fix = "run elydora repair --timer on"
    command, kind = timer.get("command"), timer.get("kind")
    if kind not in repairunits.paths(ctx) or not isinstance(command, list) or not command \
            or not all(isinstance(word, str) for word in command):
        return [f"the repair timer's record {timer_record_path(ctx)} is damaged: {fix}"]
    expected = repairunits.repair_command(ctx, command[0])
    if command != expected:
        return [f"the repair timer's record {timer_record_path(ctx)} names a command elydora does not write "
                f"({' '.join(command)}): {fix}"]
    problems = []
    if not os.path.isfile(command[0]):
        problems.append(f"the repair timer runs {command[0]}, which no longer exists: {fix}")
    made = repairunits.files(ctx, kind, expected)
    missing = [str(p) for p in made if _read(p) is None]
    if missing:
        problems.append(f"the repair timer is incomplete ({', '.join(missing)} missing): {fix}")
    changed = [str(p) for p, data in made.items() if _read(p) not in (None, data)]
    if changed:
        problems.append(f"the repair timer was changed outside elydora ({', '.join(changed)}): it may run "
                        f"something other than elydora repair; {fix} (or --timer off)")
    return problems


def report(ctx: Context) -> dict[str, Any] | None:
    """The timer (its kind, files and command; ``None``: off) with what is wrong with it, and the last run;
    ``None`` when there is neither a timer, nor a timer's file, nor a log."""
    timer = _timer(ctx)
    last = last_runs(ctx)
    stray = [] if timer else [str(p) for found in repairunits.paths(ctx).values() for p in found if p.exists()]
    if timer is None and not last and not stray:
        return None
    problems = _timer_problems(ctx, timer) if timer is not None else []
    if stray:
        problems.append(f"a repair timer's files are there but elydora has no record of them ({', '.join(stray)}): "
                        "what they run is not known; run elydora repair --timer on (or --timer off)")
    return {"timer": timer, "last": last[-1] if last else None, "problems": problems}


def describe(found: dict[str, Any]) -> list[str]:
    """The status lines of :func:`report`."""
    timer = found["timer"]
    lines = [f"repair: timer on ({timer['kind']}: {', '.join(timer['files'])})" if timer else "repair: timer off"]
    last = found["last"]
    if last:
        restored = sum(len(files) for files in last.get("restored", {}).values())
        agents = ", ".join(sorted(last.get("restored", {})))
        what = f"restored {restored} file(s) of {agents}" if restored else "nothing to restore"
        errors = f"; could not repair {', '.join(sorted(last['errors']))}" if last.get("errors") else ""
        lines.append(f"  last run {last.get('at')}: {what}{errors}")
    lines += [f"  - {p}" for p in found["problems"]]
    return lines
