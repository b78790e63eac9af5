#!/usr/bin/python
"""Ansible module ``elydora_hooks``: install or remove Elydora's hooks by driving the installed ``elydora`` CLI.

The module holds no install logic of its own: every write is the CLI's (one transaction per agent, byte
preservation, crash recovery). Check mode is the CLI's ``--dry-run``, diff mode returns the CLI's unified diff,
``changed`` is true exactly when the CLI reports changed files, and the compliance probe
(``elydora status --scope system --json``) is returned as ``ansible_facts.elydora``. See docs/fleet.md.
"""

from __future__ import annotations

import json
from typing import Any

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: elydora_hooks
short_description: Install or remove Elydora guard/audit hooks in AI coding agents
author: Elydora
description:
  - Drives the C(elydora) CLI installed on the host (C(pip install elydora-config)).
  - Check mode runs C(elydora ... --dry-run); diff mode returns its unified diff; C(changed) is true exactly
    when the CLI reports changed files. The compliance probe's JSON is returned as C(ansible_facts.elydora).
options:
  state:
    description: C(present) installs (or converges) the hooks, C(absent) uninstalls them.
    type: str
    choices: [present, absent]
    default: present
  agents:
    description: Provider ids or aliases (C(claude), C(codex), ...). Required unless O(all_present) is true.
    type: list
    elements: str
  all_present:
    description: Every agent present on the host (C(install --all)); with C(state=absent), every supported agent.
    type: bool
    default: false
  scope:
    description: C(system) writes the agents' managed layers (root only); C(user) the running user's files.
    type: str
    choices: [user, system]
    default: system
  timeout:
    description: Hook timeout in seconds (1-3600), C(--hook-timeout-seconds).
    type: int
  python:
    description: The interpreter the hooks run (C(--python)); default the one running C(elydora).
    type: path
  lock_down:
    description: C(true) passes C(--lock-down), C(false) C(--no-lock-down); unset leaves the switch as it is.
    type: bool
  root:
    description: Place every path below this directory (C(--root)); for sandboxes and tests.
    type: path
  executable:
    description: The C(elydora) executable; default the one on C(PATH).
    type: path
"""

EXAMPLES = r"""
- name: Elydora hooks in the managed layers of Claude Code and Codex
  elydora_hooks:
    agents: [claude, codex]
    timeout: 10
"""

RETURN = r"""
results:
  description: The CLI's per-agent results (C(changed) lists the files whose bytes changed).
  type: list
  returned: always
ansible_facts:
  description: C(elydora), the JSON of C(elydora status --scope <scope> --json).
  type: dict
  returned: always
"""


ARGUMENT_SPEC: dict[str, dict[str, Any]] = {
    "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
    "agents": {"type": "list", "elements": "str"},
    "all_present": {"type": "bool", "default": False},
    "scope": {"type": "str", "choices": ["user", "system"], "default": "system"},
    "timeout": {"type": "int"},
    "python": {"type": "path"},
    "lock_down": {"type": "bool"},
    "root": {"type": "path"},
    "executable": {"type": "path"},
}
"""The options (documented in DOCUMENTATION above; a test pins the two equal)."""


def _error_line(stderr: str, fallback: str) -> str:
    """The CLI's last ``Error:`` line (the one a user reads), else ``fallback``."""
    errors = [line for line in stderr.splitlines() if line.startswith("Error:")]
    return errors[-1] if errors else fallback


def _invoke(module: AnsibleModule, argv: list[str]) -> tuple[int, dict[str, Any], str]:
    """Run the CLI with ``--json``: its exit code, its report and its stderr (unreadable output fails the task)."""
    rc, out, err = module.run_command([*argv, "--json"])
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    if not isinstance(report, dict):
        module.fail_json(msg=_error_line(err, f"elydora {argv[1]} exited {rc}"), rc=rc, stderr=err)
    return rc, report, err


def _command(module: AnsibleModule) -> list[str]:
    """The install/uninstall argv (without ``--dry-run`` and ``--json``)."""
    params = module.params
    executable = params["executable"] or module.get_bin_path("elydora", required=True)
    action = "install" if params["state"] == "present" else "uninstall"
    argv = [executable, action, *(params["agents"] or []), "--scope", params["scope"]]
    if params["all_present"]:
        argv.append("--all")
    if params["root"]:
        argv += ["--root", params["root"]]
    if action == "install":
        if params["timeout"] is not None:
            argv += ["--hook-timeout-seconds", str(params["timeout"])]
        if params["python"]:
            argv += ["--python", params["python"]]
        if params["lock_down"] is not None:
            argv.append("--lock-down" if params["lock_down"] else "--no-lock-down")
    return argv


def _apply(module: AnsibleModule, argv: list[str], dry_run: bool) -> dict[str, Any]:
    """One CLI run; a reported failure of any agent fails the task with the CLI's own error line."""
    rc, report, err = _invoke(module, [*argv, "--dry-run"] if dry_run else argv)
    if rc != 0 or report.get("failures"):
        changed = not dry_run and _changed(report)
        module.fail_json(
            msg=_error_line(err, f"elydora {argv[1]} exited {rc}"),
            rc=rc,
            changed=changed,
            results=report.get("results", []),
            failures=report.get("failures", []),
        )
    return report


def _changed(report: dict[str, Any]) -> bool:
    """Whether the CLI changed (or, in a dry run, would change) the bytes of any file."""
    return any(result.get("changed") for result in report.get("results", []))


def _probe(module: AnsibleModule, argv: list[str]) -> dict[str, Any]:
    """The compliance probe's JSON (exit 1 is a finding reported in the facts, not a task failure)."""
    params = module.params
    probe = [argv[0], "status", "--scope", params["scope"]]
    if params["scope"] == "user":
        probe += params["agents"] or []
    if params["root"]:
        probe += ["--root", params["root"]]
    if params["timeout"] is not None and params["state"] == "present":
        probe += ["--hook-timeout-seconds", str(params["timeout"])]  # what the entries must carry
    rc, report, err = _invoke(module, probe)
    if rc not in (0, 1):
        module.fail_json(msg=_error_line(err, f"elydora status exited {rc}"), rc=rc, ansible_facts={"elydora": report})
    return report


def main() -> None:
    module = AnsibleModule(
        argument_spec=ARGUMENT_SPEC,
        required_one_of=[("agents", "all_present")],
        mutually_exclusive=[("agents", "all_present")],
        supports_check_mode=True,
    )
    argv = _command(module)
    preview = _apply(module, argv, dry_run=True) if module.check_mode or module._diff else {}
    report = preview if module.check_mode else _apply(module, argv, dry_run=False)
    outcome: dict[str, Any] = {
        "changed": _changed(report),
        "results": report.get("results", []),
        "skipped": report.get("skipped", []),
    }
    if module._diff:
        outcome["diff"] = {"prepared": "".join(result.get("diff", "") for result in preview.get("results", []))}
    outcome["ansible_facts"] = {"elydora": _probe(module, argv)}
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
