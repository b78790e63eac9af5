"""What ``status`` checks of an installed agent beyond its config entries: that the install is live (a guard
that is no uninstall stub), that it was made with the same ``--hook-command``, and its runtime (the generated
files byte for byte, the identity, the interpreter or supervisor the entries run)."""

from __future__ import annotations

import os
from pathlib import Path

from .. import identity
from ..plug.context import Context
from ..plug.contract import Finding, Provider
from ..plug.ownership import command_words
from .manifest import Manifest
from .staging import runtime_files
from .systemscope import system_file_findings, system_policy_findings, user_root


def live_guard(path: Path) -> bool:
    """A guard script that is not an uninstall's inert stub."""
    if not path.exists():  # most agents are not installed: no stub module to load for them
        return False
    from ..runtime.stubs import stub_time

    return stub_time(path) is None


def _words(command: str | None) -> tuple[str, ...] | str | None:
    if command is None:
        return None
    try:
        return command_words(command)
    except ValueError:  # a manifest edited by hand: compare the text
        return command


def command_mismatch(recorded: str | None, given: str | None) -> str | None:
    """Why the install and this command's ``--hook-command`` disagree (``None``: they agree)."""
    if _words(recorded) == _words(given):
        return None
    if given is None:
        return f"installed with --hook-command {recorded!r}; pass the same --hook-command (or reinstall without it)"
    if recorded is None:
        return "installed without --hook-command (the entries run the Elydora runtime); drop --hook-command"
    return f"installed with --hook-command {recorded!r}, not {given!r}; pass that one (or reinstall)"


def check_runtime(
    provider: Provider, provider_id: str, ctx: Context, agent_dir: Path, agent_id: str, manifest: Manifest | None
) -> list[Finding]:
    findings = []
    python = manifest.python if manifest else ctx.python
    runtime_dir = ctx.runtime_dir(agent_id)
    expected = {} if ctx.hook_command else runtime_files(provider_id, runtime_dir, python, user_root(ctx))
    expected.update(provider.extra_runtime(ctx.with_options(python=python), agent_id))
    from ..readpass import read_physical

    for name, (data, mode) in expected.items():
        path = ctx.runtime_file(agent_id, name)
        actual = read_physical(path, max_bytes=4 << 20)
        if actual is None:
            findings.append(Finding("runtime file is missing", path))
        elif actual != data:
            findings.append(Finding("runtime file differs from what this version generates (reinstall)", path))
        elif ctx.system:
            findings += system_file_findings(path, mode)
    if ctx.system:
        findings += system_policy_findings(runtime_dir)
    else:
        findings += _identity_findings(agent_dir, provider_id)
    executable, what = (python, "hook interpreter")
    if ctx.hook_command:
        executable, what = _supervisor(ctx.hook_command), "supervisor"
    if not os.path.isfile(executable) or not os.access(executable, os.X_OK):
        findings.append(Finding(f"the {what} {executable} does not exist or is not executable"))
    return findings


def _identity_findings(agent_dir: Path, provider_id: str) -> list[Finding]:
    findings = []
    try:
        config = identity.read_config(agent_dir)
        if config.agent_name != provider_id:
            findings.append(
                Finding(f"agent_name is {config.agent_name!r}, expected {provider_id!r}", agent_dir / identity.CONFIG)
            )
        identity.check_private_key(agent_dir)
    except Exception as exc:  # every identity problem is one finding, never a crash of status
        findings.append(Finding(str(exc)))
    return findings


def _supervisor(command: str) -> str:
    from ..neutral.hookcommand import parse_hook_command

    return parse_hook_command(command).executable
