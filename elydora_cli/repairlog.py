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


def report(ctx: Context) -> dict[str, Any] | None:
    """The timer (its kind, files and command; ``None``: off) with what is wrong with it, and the last run;
    ``None`` when there is neither a timer nor a log."""
    timer = _timer(ctx)
    last = last_runs(ctx)
    if timer is None and not last:
        return None
    problems = []
    if timer is not None:
        missing = [f for f in timer.get("files", []) if not os.path.exists(f)]
        if missing:
            problems.append(f"the repair timer is incomplete ({', '.join(missing)} missing): run "
                            "elydora repair --timer on")
        command = timer.get("command") or [""]
        if not os.path.isfile(command[0]):
            problems.append(f"the repair timer runs {command[0]}, which no longer exists: run "
                            "elydora repair --timer on")
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
