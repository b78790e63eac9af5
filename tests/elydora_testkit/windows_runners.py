"""How each agent's Windows runner reaches our entries: through PowerShell, or by starting a program itself.

One table for the tests of the Windows forms (``tests/elydora_cli/plug/test_runners.py``) and of the demo under
Wine (``tests/elydora_cli/commands/test_cmd_demo_windows.py``).
"""

from __future__ import annotations

POWERSHELL_RUN: dict[str, str] = {  # agent -> how the agent's Windows runner reaches PowerShell
    "codex": "encoded",  # commandWindows, an encoded line its session shell starts
    "kimi": "encoded",
    "grok": "encoded",
    "openhands": "encoded",
    "gemini": "encoded in call operator",  # Gemini hands its command to PowerShell: & '<powershell.exe>' ...
    "copilot": "call operator",  # the powershell field
    "cursor": "call operator",
    "droid": "call operator",
    "letta": "call operator",
    "kirocli": "call operator",
    "kiroide": "call operator",
    "kiroagent": "call operator",
    "qwen": "call operator",  # shell: powershell
}
EXECUTED: dict[str, str] = {  # agent -> the program its runner starts (no PowerShell): the demo runs it under Wine
    "claudecode": "python",  # exec form
    "qoder": "python",
    "hermes": "python",  # shlex-split word list, no shell
    "crush": "python",  # its embedded POSIX shell spawns the word list
    "augment": "python",  # exec form: Auggie spawns command + args without a shell (its old .cmd wrappers go)
    "cline": "node",
    "opencode": "node",
    "kilo": "node",
    "pi": "node",
}
