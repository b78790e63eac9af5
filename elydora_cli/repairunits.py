"""The files of the repair timer, as ``elydora repair --timer on`` writes them (no process, no clock, no file
written): one home for what the timer runs, so :mod:`.repairtimer` writes exactly what ``status`` checks
(:mod:`.repairlog`). ``plistlib`` is imported on first use, for a launchd agent only (it loads ``datetime``, which
no other status needs, docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

from .plug import layers
from .plug.context import Context

SYSTEMD, LAUNCHD, SCHTASKS = "systemd", "launchd", "schtasks"
UNIT = "elydora-repair"
LABEL = "dev.elydora.repair"
TASK_NAME = "Elydora repair"
TASK_FILE = "repair-task.xml"
INTERVAL_SECONDS = 3600


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


_SYSTEMD_ESCAPES = {"\\": "\\\\", '"': '\\"', "%": "%%", "$": "$$", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _systemd_quote(arg: str) -> str:
    """One ``ExecStart`` word: double-quoted, ``\\`` and ``"`` escaped, ``%`` and ``$`` doubled (a specifier, a
    variable otherwise), a control character as a C escape (``\\n``: a newline would end the line, and systemd
    would refuse the unit)."""
    return '"' + "".join(_systemd_char(c) for c in arg) + '"'


def _systemd_char(char: str) -> str:
    if char in _SYSTEMD_ESCAPES:
        return _SYSTEMD_ESCAPES[char]
    if char.isprintable():
        return char
    return f"\\x{ord(char):02x}" if ord(char) < 0x80 else f"\\u{ord(char):04x}"


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
    import plistlib  # on first use (module docstring)

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




def paths(ctx: Context) -> dict[str, list[Path]]:
    """The files of the timer of each kind for this home (the kind of this system is :func:`kind_of`)."""
    units = (ctx.env_dir("XDG_CONFIG_HOME") or ctx.home / ".config") / "systemd" / "user"
    return {
        SYSTEMD: [units / f"{UNIT}.service", units / f"{UNIT}.timer"],
        LAUNCHD: [ctx.home / "Library" / "LaunchAgents" / f"{LABEL}.plist"],
        SCHTASKS: [ctx.elydora_dir / TASK_FILE],
    }


def files(ctx: Context, kind: str, command: list[str]) -> dict[Path, bytes]:
    """The timer's files of ``kind`` running ``command``, with their bytes."""
    where = paths(ctx)[kind]
    if kind == SYSTEMD:
        texts = systemd_units(command)
        return {path: texts[path.name].encode() for path in where}
    if kind == LAUNCHD:
        return {where[0]: launchd_plist(command, ctx.elydora_dir)}
    return {where[0]: task_xml(command)}
