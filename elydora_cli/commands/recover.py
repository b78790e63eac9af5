"""``elydora recover``: finish or undo a transaction interrupted by a crash."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from elydora_config import recover

from .. import exitcodes
from .. import providers as registry
from .options import add_location_flags, context_from


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "recover",
        help="finish or undo an install/uninstall interrupted by a crash",
        epilog="examples:\n  elydora recover                                # after exit code 4\n"
        "  elydora recover --root ./sandbox --json",
    )
    add_location_flags(parser)
    parser.set_defaults(func=run)


def _scan_dirs(ctx: Any) -> list[Path]:
    """Directories where a killed write may have left a temp file: the state tree and every agent file's folder."""
    dirs = {ctx.elydora_dir}
    if ctx.elydora_dir.is_dir():
        dirs.update(p for p in ctx.elydora_dir.iterdir() if p.is_dir() and not p.is_symlink())
    for pid in registry.implemented_ids():
        try:
            dirs.update(t.path.parent for t in registry.load(pid).sources(ctx).targets)
        except Exception:  # a provider whose paths cannot be resolved has nothing to clean
            continue
    return sorted(dirs)


def run(args: argparse.Namespace) -> int:
    ctx = context_from(args)
    reports = recover(ctx.elydora_dir, scan_dirs=_scan_dirs(ctx))
    if args.json:
        print(json.dumps({"recovered": [_as_json(r) for r in reports]}))
    elif not reports:
        print("nothing to recover")
    for report in reports if not args.json else []:
        print(f"transaction {report.txid}: {report.outcome} ({len(report.paths)} file(s))")
        for conflict in report.conflicts:
            print(
                f"  {conflict.path} was changed by another program after the interruption: its current content "
                f"is kept in place; the original and our version are saved in {report.saved_in}"
            )
    return exitcodes.OK


def _as_json(report: Any) -> dict[str, Any]:
    conflicts = [{"path": c.path, "original": c.original, "ours": c.ours} for c in report.conflicts]
    return {
        "txid": report.txid,
        "outcome": report.outcome,
        "paths": report.paths,
        "conflicts": conflicts,
        "saved_in": report.saved_in,
    }
