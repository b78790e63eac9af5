#!/usr/bin/python
"""Ansible module ``elydora_hooks``: install or remove Elydora's hooks by driving the installed ``elydora`` CLI.

The module holds no install logic of its own: every write is the CLI's (one transaction per agent, byte
preservation, crash recovery). Check mode is the CLI's ``--dry-run``, diff mode returns the CLI's unified diff,
``changed`` is true exactly when the CLI reports changed files, and the compliance probe
(``elydora status --scope system --json``) is returned as ``ansible_facts.elydora``. With ``server`` and
``users``, each user's identity ``<agent>@<user>`` of every agent installed is bound to the server by
``elydora agent provision`` (secrets only from files on the host; never on a command line). With
``repair_timer`` (user scope), the user's hourly repair timer is switched on or off (``elydora repair --timer``).
See docs/fleet.md.
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
    description:
      - C(system) writes the agents' managed layers (root only), such as Claude Code's C(managed-settings.d/)
        drop-in, Copilot CLI's C(policy.d/) file and Codex's C(requirements.toml); C(user) the running user's files.
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
  server:
    description:
      - Bind each user of O(users) to an Elydora server (C(elydora agent provision --scope system)), for every
        agent installed; only with O(scope=system) and O(state=present).
      - In O(server.kid), O(server.private_key_file) and O(server.token_file), C({agent}) is replaced by the agent
        id and C({user}) by the user name (each C(<agent>@<user>) is its own identity on the server, with its key).
    type: dict
    suboptions:
      base_url:
        description: The server's origin (C(https://...)).
        type: str
        required: true
      org_id:
        description: The organisation id on the server.
        type: str
        required: true
      kid:
        description: The key id registered for C(<agent>@<user>) (placeholders allowed).
        type: str
        required: true
      token_file:
        description: An owner-only file on the host holding the API token (placeholders allowed).
        type: path
        required: true
      private_key_file:
        description: An owner-only file on the host holding the user's registered private key (placeholders allowed).
        type: path
        required: true
  users:
    description: The OS users whose identities are bound to O(server); required with O(server).
    type: list
    elements: str
  repair_timer:
    description:
      - C(true) switches on the connecting user's hourly repair timer (C(elydora repair --timer on)) after the
        install, which restores entries an agent or the user removed; C(false) switches it off; unset leaves it.
      - Only with O(scope=user) (a user-level timer: systemd user timer, launchd agent or scheduled task).
    type: bool
"""

EXAMPLES = r"""
- name: Elydora hooks in the managed layers of Claude Code and Codex
  elydora_hooks:
    agents: [claude, codex]
    timeout: 10

- name: The same, each user's records delivered to the Elydora server
  elydora_hooks:
    agents: [claude, codex]
    users: [alice, bob]
    server:
      base_url: https://elydora.example.com
      org_id: org-1
      kid: "{agent}@{user}-1"
      token_file: /etc/elydora/token
      private_key_file: "/etc/elydora/keys/{agent}@{user}.key"
"""

RETURN = r"""
results:
  description: The CLI's per-agent results (C(changed) lists the files whose bytes changed).
  type: list
  returned: always
bindings:
  description: One C(elydora agent provision) report per agent and user (C(changed) lists files; never a secret).
  type: list
  returned: when O(server) is given
repair_timer:
  description: The CLI's report of C(elydora repair --timer) (C(changed), C(notes)).
  type: dict
  returned: when O(repair_timer) is given
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
    "server": {
        "type": "dict",
        "options": {
            "base_url": {"type": "str", "required": True},
            "org_id": {"type": "str", "required": True},
            "kid": {"type": "str", "required": True},
            "token_file": {"type": "path", "required": True},
            "private_key_file": {"type": "path", "required": True},
        },
    },
    "users": {"type": "list", "elements": "str"},
    "repair_timer": {"type": "bool"},
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


def _provision_argv(module: AnsibleModule, executable: str, agent: str, user: str) -> list[str]:
    """``elydora agent provision`` for one agent and user (paths on the host; no secret on the command line)."""
    params, server = module.params, module.params["server"]

    def fill(value: str) -> str:
        return value.replace("{agent}", agent).replace("{user}", user)

    argv = [executable, "agent", "provision", "--scope", "system", "--provider", agent, "--user", user,
            "--base-url", server["base_url"], "--org-id", server["org_id"], "--kid", fill(server["kid"]),
            "--token-file", fill(server["token_file"]), "--private-key-file", fill(server["private_key_file"])]
    return argv + (["--root", params["root"]] if params["root"] else [])


def _bind(module: AnsibleModule, executable: str, report: dict[str, Any]) -> list[dict[str, Any]]:
    """Provision every user for every agent the install reported. In check mode an agent whose install is
    still to come cannot be checked yet: its bindings count as changes (the install creates what they need)."""
    bindings = []
    for result in report.get("results", []):
        for user in module.params["users"]:
            argv = _provision_argv(module, executable, result["provider"], user)
            rc, out, err = module.run_command([*argv, "--json"] + (["--dry-run"] if module.check_mode else []))
            if rc != 0 and module.check_mode and result.get("changed"):
                bindings.append({"agent_id": f"{result['agent_id']}@{user}", "user": user, "changed": ["(pending the "
                                 "install)"], "replaced": None, "dry_run": True})
                continue
            try:
                doc = json.loads(out) if rc == 0 else None
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                module.fail_json(msg=_error_line(err, f"elydora agent provision exited {rc}"), rc=rc,
                                 changed=_bound(bindings), bindings=bindings)
            bindings.append(doc)
    return bindings


def _bound(bindings: list[dict[str, Any]]) -> bool:
    return any(binding.get("changed") for binding in bindings)


def _repair_timer(module: AnsibleModule, executable: str) -> dict[str, Any]:
    """``elydora repair --timer on|off`` (its dry run in check mode); the CLI's report (``changed``, ``notes``)."""
    params = module.params
    argv = [executable, "repair", "--timer", "on" if params["repair_timer"] else "off"]
    argv += (["--root", params["root"]] if params["root"] else []) + (["--dry-run"] if module.check_mode else [])
    rc, report, err = _invoke(module, argv)
    if rc != 0:
        module.fail_json(msg=_error_line(err, f"elydora repair exited {rc}"), rc=rc)
    return report


def _check_binding_options(module: AnsibleModule) -> None:
    params = module.params
    if params["repair_timer"] is not None and params["scope"] != "user":
        module.fail_json(msg="repair_timer is a user-level timer: it applies to scope=user only")
    if params["server"] is None and params["users"] is None:
        return
    if params["server"] is None or not params["users"]:
        module.fail_json(msg="server and users go together")
    if params["scope"] != "system" or params["state"] != "present":
        module.fail_json(msg="server applies to scope=system and state=present only")


def main() -> None:
    module = AnsibleModule(
        argument_spec=ARGUMENT_SPEC,
        required_one_of=[("agents", "all_present")],
        mutually_exclusive=[("agents", "all_present")],
        supports_check_mode=True,
    )
    _check_binding_options(module)
    argv = _command(module)
    preview = _apply(module, argv, dry_run=True) if module.check_mode or module._diff else {}
    report = preview if module.check_mode else _apply(module, argv, dry_run=False)
    bindings = _bind(module, argv[0], report) if module.params["server"] else []
    timer = _repair_timer(module, argv[0]) if module.params["repair_timer"] is not None else {}
    outcome: dict[str, Any] = {
        "changed": _changed(report) or _bound(bindings) or bool(timer.get("changed")),
        "results": report.get("results", []),
        "skipped": report.get("skipped", []),
    }
    if module.params["server"]:
        outcome["bindings"] = bindings
    if timer:
        outcome["repair_timer"] = timer
    if module._diff:
        prepared = "".join(result.get("diff", "") for result in preview.get("results", []))
        prepared += "".join(f"elydora agent provision {b['agent_id']}: {path} (secret: no diff shown)\n"
                            for b in bindings for path in b.get("changed", []))
        outcome["diff"] = {"prepared": prepared}
    outcome["ansible_facts"] = {"elydora": _probe(module, argv)}
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
