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
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

from elydora_config.records import record

from . import repairlog
from .plug import layers
from .plug.context import Context

SYSTEMD, LAUNCHD, SCHTASKS = "systemd", "launchd", "schtasks"
UNIT = "elydora-repair"
LABEL = "dev.elydora.repair"
TASK_NAME = "Elydora repair"
TASK_FILE = "repair-task.xml"
INTERVAL_SECONDS = 3600


@record(frozen=True)
class Timer:
    """The timer of this system for one home: its kind, the files that make it, how to switch it on and off."""

    kind: str
    files: dict[Path, bytes]
    activate: list[list[str]]
    deactivate: list[list[str]]
    command: list[str]
    """What the timer runs."""


def kind_of(ctx: Context) -> str:
    if ctx.windows:
        return SCHTASKS
    return LAUNCHD if layers.on_macos() else SYSTEMD


def repair_command(ctx: Context, python: str) -> list[str]:
    """``<python> -m elydora_cli repair --quiet`` (with ``--root``/``--state-root`` when this run had them)."""
    argv = [python, "-m", "elydora_cli", "repair", "--quiet"]
    if ctx.rooted:
        argv += ["--root", str(ctx.home)]
    if ctx.state_root != ctx.home:
        argv += ["--state-root", str(ctx.state_root)]
    return argv


def _systemd_quote(arg: str) -> str:
    """One ``ExecStart`` word: double-quoted, ``\\`` and ``"`` escaped, ``%`` doubled (a specifier otherwise)."""
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%") + '"'


def systemd_units(command: list[str]) -> dict[str, str]:
    """The service that runs the repair once, and the hourly timer that starts it (also after a missed hour)."""
    service = (
        "[Unit]\n"
        "Description=Elydora: restore the hooks an agent or a user removed (elydora repair)\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart={' '.join(_systemd_quote(a) for a in command)}\n"
    )
    timer = (
        "[Unit]\n"
        "Description=Run elydora repair every hour\n\n"
        "[Timer]\n"
        "OnCalendar=hourly\n"
        "Persistent=true\n"
        "RandomizedDelaySec=300\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n"
    )
    return {f"{UNIT}.service": service, f"{UNIT}.timer": timer}


def launchd_plist(command: list[str], log_dir: Path) -> bytes:
    """A launchd agent that runs the repair at login and every hour."""
    return plistlib.dumps({
        "Label": LABEL,
        "ProgramArguments": command,
        "StartInterval": INTERVAL_SECONDS,
        "RunAtLoad": True,
        "ProcessType": "Background",
        "StandardErrorPath": str(log_dir / "repair.err"),
    }, sort_keys=True)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _windows_arguments(args: list[str]) -> str:
    return " ".join(f'"{a}"' if (" " in a or not a) else a for a in args)


def task_xml(command: list[str]) -> bytes:
    """A Task Scheduler task for the current user: hourly from logon, no elevation, not while on battery only."""
    text = f"""<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>Elydora: restore the hooks an agent or a user removed (elydora repair)</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <Repetition>
        <Interval>PT1H</Interval>
        <StopAtDurationEnd>false</StopAtDurationEnd>
      </Repetition>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StartWhenAvailable>true</StartWhenAvailable>
    <ExecutionTimeLimit>PT10M</ExecutionTimeLimit>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>{_xml(command[0])}</Command>
      <Arguments>{_xml(_windows_arguments(command[1:]))}</Arguments>
    </Exec>
  </Actions>
</Task>
"""
    return "\ufeff".encode("utf-16-le") + text.replace("\n", "\r\n").encode("utf-16-le")


def timer(ctx: Context, python: str) -> Timer:
    """The timer for this system and home (nothing written)."""
    command = repair_command(ctx, python)
    kind = kind_of(ctx)
    if kind == SYSTEMD:
        folder = (ctx.env_dir("XDG_CONFIG_HOME") or ctx.home / ".config") / "systemd" / "user"
        files = {folder / name: text.encode() for name, text in systemd_units(command).items()}
        unit = f"{UNIT}.timer"
        return Timer(kind, files, [["systemctl", "--user", "daemon-reload"],
                                   ["systemctl", "--user", "enable", "--now", unit]],
                     [["systemctl", "--user", "disable", "--now", unit]], command)
    if kind == LAUNCHD:
        plist = ctx.home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
        domain = f"gui/{os.getuid()}" if hasattr(os, "getuid") else "gui"
        return Timer(kind, {plist: launchd_plist(command, ctx.elydora_dir)},
                     [["launchctl", "bootstrap", domain, str(plist)]],
                     [["launchctl", "bootout", f"{domain}/{LABEL}"]], command)
    xml = ctx.elydora_dir / TASK_FILE
    return Timer(kind, {xml: task_xml(command)},
                 [["schtasks", "/Create", "/TN", TASK_NAME, "/XML", str(xml), "/F"]],
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
