"""``elydora status``: each agent checked on its own; exit 1 when anything installed is unhealthy."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import exitcodes
from . import options


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "status",
        help="check the installed hooks of each agent",
        epilog="examples:\n"
        "  elydora status                                 # every agent: healthy / unhealthy / not installed\n"
        "  elydora status claude codex --json             # two agents, machine-readable (failures included)\n"
        "  elydora status --root ./sandbox                # a sandbox home",
    )
    options.add_hook_flags(parser, all_help=None)
    parser.set_defaults(func=run)


def _one(pid: str, ctx: Any) -> dict[str, Any]:
    from elydora_config.errors import ConfigError

    from ..installer import operations

    try:
        st = operations.status(pid, ctx)
    except (ConfigError, OSError) as exc:  # one broken file never hides the other agents
        from ..exitcodes import failure

        message = exc.message if isinstance(exc, ConfigError) else f"{exc.filename}: {exc.strerror}"
        row = {"provider": pid, "state": "error", "healthy": False, "problems": [message]}
        return dict(row, failures=[failure(pid, exc)])
    if st.healthy:
        state = "healthy"
    elif st.awaiting_approval:
        state = "awaiting approval"
    else:
        state = "unhealthy" if st.installed else "not installed"
    problems = [f for f in st.findings if st.installed]
    row = {
        "provider": pid,
        "agent_id": st.agent_id,
        "state": state,
        "healthy": st.healthy,
        "problems": [f.render() for f in problems],
        "failures": [
            {"provider": pid, "file": None if f.path is None else str(f.path), "message": f.message}
            for f in problems
            if f.severity == "error"
        ],
    }
    return _with_delivery(row, ctx) if st.installed and st.agent_id else row


def _with_delivery(row: dict[str, Any], ctx: Any) -> dict[str, Any]:
    """A server-bound agent's delivery and status-query health (runtime/health.py); unhealthy if broken."""
    from ..runtime import health

    report = health.server_health(str(ctx.agent_dir(row["agent_id"])))
    if report is None:
        return row
    row["delivery"] = report
    if not report["healthy"]:
        row["problems"] = [*row["problems"], *report["problems"]]
        row["failures"] = [
            *row["failures"],
            *({"provider": row["provider"], "file": None, "message": problem} for problem in report["problems"]),
        ]
        row["healthy"] = False
        row["state"] = "unhealthy" if row["state"] == "healthy" else row["state"]
    return row


def run(args: argparse.Namespace) -> int:
    ctx = options.context_from(args)
    rows = [_one(pid, options.remembered(ctx, args, pid)) for pid in options.selected_providers(args, default_all=True)]
    if args.json:
        failures = [f for row in rows for f in row.pop("failures")]
        print(json.dumps({"providers": rows, "failures": failures}, indent=2))
    else:
        for row in rows:
            print(f"{row['provider']:<12} {row['state']}")
            row.pop("failures")
            for problem in row["problems"]:
                print(f"  - {problem}")
            if "delivery" in row:
                from ..runtime.health import summary

                print(f"  {summary(row['delivery'])}")
    bad = any(r["state"] in ("unhealthy", "awaiting approval", "error") for r in rows)
    return exitcodes.UNHEALTHY if bad else exitcodes.OK
