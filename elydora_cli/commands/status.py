"""``elydora status``: each agent checked on its own; exit 1 when anything installed is unhealthy."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .. import exitcodes
from . import options


def register(sub: Any) -> None:
    parser = sub.add_parser("status", help="check the installed hooks of each agent")
    options.add_hook_flags(parser, all_flag=False)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def _one(pid: str, ctx: Any) -> dict[str, Any]:
    from elydora_config.errors import ConfigError

    from ..installer import operations

    try:
        st = operations.status(pid, ctx)
    except (ConfigError, OSError) as exc:  # one broken file never hides the other agents
        message = exc.message if isinstance(exc, ConfigError) else f"{exc.filename}: {exc.strerror}"
        return {"provider": pid, "state": "error", "healthy": False, "problems": [message]}
    if st.healthy:
        state = "healthy"
    elif st.awaiting_approval:
        state = "awaiting approval"
    else:
        state = "unhealthy" if st.installed else "not installed"
    return {
        "provider": pid,
        "agent_id": st.agent_id,
        "state": state,
        "healthy": st.healthy,
        "problems": [f.render() for f in st.findings if st.installed],
    }


def run(args: argparse.Namespace) -> int:
    ctx = options.context_from(args)
    rows = [_one(pid, ctx) for pid in options.selected_providers(args, default_all=True)]
    if args.json:
        print(json.dumps({"providers": rows}, indent=2))
    else:
        for row in rows:
            print(f"{row['provider']:<12} {row['state']}")
            for problem in row["problems"]:
                print(f"  - {problem}")
    bad = any(r["state"] in ("unhealthy", "awaiting approval", "error") for r in rows)
    return exitcodes.UNHEALTHY if bad else exitcodes.OK
