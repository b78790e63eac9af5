"""The opt-in user-level timer that runs ``elydora repair`` every hour (``elydora repair --timer on``).

One kind per system, each in the user's own place, never root's:

- Linux: a systemd user timer, ``elydora-repair.service`` and ``elydora-repair.timer`` in
  ``$XDG_CONFIG_HOME/systemd/user`` (``~/.config/systemd/user``), enabled with ``systemctl --user``;
- macOS: a launchd agent, ``~/Library/LaunchAgents/dev.elydora.repair.plist``, loaded with ``launchctl``;
- Windows: a scheduled task ``Elydora repair`` for the user, registered with ``schtasks`` from the task XML kept
  in the state directory (``repair-task.xml``).

The files are written as plain text (they are ours, not the user's settings) and removed by ``--timer off``.
Under ``--root`` (a test home) they are written there and not activated: the activation command is named
instead. ``status`` reports the timer with the last run of the repair log (:mod:`.repairlog`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from elydora_config.records import record

from . import repairlog
from .plug.context import Context
from .repairunits import LABEL, LAUNCHD, SCHTASKS, SYSTEMD, TASK_NAME, UNIT, files, kind_of, repair_command


@record(frozen=True)
class Timer:
    """The timer of this system for one home: its kind, the files that make it, how to switch it on and off."""

    kind: str
    files: dict[Path, bytes]
    activate: list[list[str]]
    deactivate: list[list[str]]
    command: list[str]
    """What the timer runs."""


def timer(ctx: Context, python: str) -> Timer:
    """The timer for this system and home (nothing written)."""
    command = repair_command(ctx, python)
    kind = kind_of(ctx)
    made = files(ctx, kind, command)
    if kind == SYSTEMD:
        unit = f"{UNIT}.timer"
        return Timer(kind, made, [["systemctl", "--user", "daemon-reload"],
                                  ["systemctl", "--user", "enable", "--now", unit]],
                     [["systemctl", "--user", "disable", "--now", unit]], command)
    if kind == LAUNCHD:
        domain = "gui"
        if sys.platform != "win32":
            domain = f"gui/{os.getuid()}"
        return Timer(kind, made, [["launchctl", "bootstrap", domain, str(next(iter(made)))]],
                     [["launchctl", "bootout", f"{domain}/{LABEL}"]], command)
    return Timer(kind, made, [["schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(next(iter(made))), "/F"]],
                 [["schtasks", "/Delete", "/TN", TASK_NAME, "/F"]], command)


def _run(commands: list[list[str]]) -> list[str]:
    """Run each command; the ones that could not run or failed, as notes."""
    notes = []
    for argv in commands:
        if shutil.which(argv[0]) is None:
            notes.append(f"warning: {argv[0]} is not on PATH: run `{' '.join(argv)}` yourself")
            continue
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            notes.append(f"warning: `{' '.join(argv)}` exited {done.returncode}: {done.stderr.strip()[:200]}")
    return notes


def switch_on(ctx: Context, python: str | None = None, *, dry_run: bool = False) -> tuple[bool, list[str]]:
    """Write the timer's files and activate them (not under ``--root``); whether a file changed, and notes."""
    made = timer(ctx, python or sys.executable)
    changed = [p for p, data in made.files.items() if not p.exists() or p.read_bytes() != data]
    if dry_run:
        return bool(changed), [f"would write {p}" for p in changed]
    for path in changed:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_bytes(made.files[path])
        os.chmod(temporary, 0o644 if made.kind != SCHTASKS else 0o600)
        os.replace(temporary, path)
    repairlog.record_timer(ctx, made.kind, [str(p) for p in made.files], made.command)
    notes = [f"repair timer ({made.kind}): {', '.join(str(p) for p in made.files)}"]
    if ctx.rooted:
        return bool(changed), [*notes, "not activated under --root; activate with: "
                               + "; ".join(" ".join(c) for c in made.activate)]
    return bool(changed), notes + _run(made.activate)


def switch_off(ctx: Context, *, dry_run: bool = False) -> tuple[bool, list[str]]:
    """Deactivate the timer (not under ``--root``) and remove its files; whether one was there, and notes."""
    made = timer(ctx, sys.executable)
    present = [p for p in made.files if p.exists()]
    if dry_run:
        return bool(present), [f"would remove {p}" for p in present]
    notes = [] if ctx.rooted or not present else _run(made.deactivate)
    repairlog.forget_timer(ctx)
    for path in present:
        path.unlink()
    removed = ", ".join(str(p) for p in present)
    return bool(present), [*notes, f"repair timer removed: {removed}" if present else "repair timer was not on"]
