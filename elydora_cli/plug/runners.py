"""How an agent's runner starts the command text of one of its hook entries, on POSIX and on Windows.

An agent's ``agent_argv`` gives the argv its runner really executes for an entry (``elydora verify`` and
``elydora demo`` run exactly that). The agents differ in what their entries hold (an exec form, a command
string, a field per shell, a Node file); what the runners do with a command string is shared, and lives here:

* POSIX: the agent's shell (``/bin/sh -c`` unless the agent names another) runs the string.
* Windows, by the form the installer wrote (:mod:`.cmdforms`): a PowerShell call-operator string
  (``& '<python>' '<script>'; exit $LASTEXITCODE``, or Gemini's ``& '<powershell.exe>' ... -EncodedCommand``)
  is run by ``powershell.exe -Command``; an encoded
  PowerShell line (``"<powershell.exe>" ... -EncodedCommand <base64>``) starts ``powershell.exe`` itself,
  whichever shell reads the line, so its words are what the agent executes; any other string (Auggie's quoted
  ``.cmd`` path) goes where Node's ``spawn(..., {shell: true})`` sends it: ``cmd.exe /d /s /c "<string>"``.
* An exec form (Claude Code's ``command`` plus ``args``) and a Node file are started without a shell; so is a
  word list the agent splits itself (:func:`word_list`: Hermes, and Crush whose POSIX shell is built in).

:func:`is_powershell` names the argvs PowerShell runs: ``elydora demo`` marks them ``n/a`` where no working
PowerShell is at hand (Wine ships a stub that ignores its script).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .cmdforms import parse_encoded_powershell, parse_msvc, parse_posix, powershell_exe, system_root
from .context import Context

POSIX_SHELL = ("/bin/sh", "-c")
POWERSHELL_FLAGS = ("-NoLogo", "-NoProfile", "-NonInteractive", "-Command")
"""What a runner that hands a string to Windows PowerShell passes before it (no profile can change a hook)."""
_POWERSHELL_NAMES = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})


def shell_argv(command: str, ctx: Context, posix_shell: Sequence[str] = POSIX_SHELL) -> list[str]:
    """The argv that runs ``command`` as the agent's runner does on the context's system."""
    if ctx.windows:
        return windows_argv(command, ctx.env)
    return [*posix_shell, command]


def windows_argv(command: str, env: Mapping[str, str]) -> list[str]:
    """The argv a Windows runner executes for ``command``, by its form (see the module's docstring)."""
    if command.startswith("& "):  # the call operator (Gemini's encoded line too): only PowerShell reads it
        return powershell_argv(command, env)
    if parse_encoded_powershell(command) is not None:
        words = parse_msvc(command)
        if words is not None:
            return words
    return [comspec(env), "/d", "/s", "/c", f'"{command}"']


def word_list(command: str) -> list[str]:
    """The argv of a command an agent splits into words itself and spawns without a shell (Hermes's
    :func:`shlex.split`, on every system; Crush's embedded POSIX shell, also on Windows): our entries are
    single-quoted words (:func:`.cmdforms.parse_posix`)."""
    return parse_posix(command) or [command]


def powershell_argv(script: str, env: Mapping[str, str]) -> list[str]:
    """Windows PowerShell running ``script`` (the agents that name PowerShell for a string: Copilot's
    ``powershell`` field, Codex's session shell, Gemini's runner)."""
    return [powershell_exe(env), *POWERSHELL_FLAGS, script]


def comspec(env: Mapping[str, str]) -> str:
    """``%ComSpec%`` when it is an absolute ``cmd.exe``, else ``<SystemRoot>\\System32\\cmd.exe``."""
    value = env.get("ComSpec") or env.get("COMSPEC") or ""
    if value[1:3] == ":\\" and value.lower().endswith("\\cmd.exe") and '"' not in value:
        return value
    return system_root(env) + "\\System32\\cmd.exe"


def is_powershell(argv: Sequence[str]) -> bool:
    """Whether ``argv`` starts PowerShell (by the program's file name, any directory, any case)."""
    program = argv[0] if argv else ""
    return program[max(program.rfind("/"), program.rfind("\\")) + 1 :].lower() in _POWERSHELL_NAMES

