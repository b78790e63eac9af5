"""``elydora demo [DIR]``: the whole tour in a sandbox home, and a table of what held (exit 1 if anything
did not). See :mod:`elydora_cli.demo`."""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any

from .. import catalog, exitcodes
from ..demo import sandbox, tour
from ..exitcodes import UsageError
from ..pathtext import shown
from ..providers import implemented_ids
from ..recovery_hint import command_line

EXAMPLES = """examples:
  elydora demo                    # in a new temporary directory (its path is printed)
  elydora demo ./elydora-demo     # in ./elydora-demo (empty, new, or an earlier demo's, which is replaced)
  elydora demo claude gemini      # only these agents
"""


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "demo",
        help="install every agent into a sandbox home, run its hooks as the agent would, freeze, uninstall",
        description="Build a sandbox home holding existing configs for every supported agent, install them all, "
        "run each agent's installed guard and audit hook exactly as the agent runs them with its native "
        "payloads, show the signed records and audit verify, freeze and show each agent's block, unfreeze, "
        "uninstall, and prove every original file byte-identical with its mode.",
        epilog=EXAMPLES,
    )
    parser.add_argument("dir", nargs="?", metavar="DIR", help="where to build the sandbox (default: a new temp dir)")
    parser.add_argument("agents", nargs="*", metavar="PROVIDER", help="only these agents (default: every one)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    directory, names = args.dir, list(args.agents)
    if directory is not None and _is_provider(directory):  # `elydora demo claude`: no DIR given
        directory, names = None, [directory, *names]
    try:
        chosen = list(dict.fromkeys(catalog.canonical_id(n) for n in names)) or list(implemented_ids())
    except catalog.UnknownProviderError as exc:
        raise UsageError(exc.message) from None
    box = sandbox.prepare(directory)
    narration = io.StringIO() if args.json else sys.stdout
    narration.write(shown(f"sandbox: {box.root}  (home {box.home}, project {box.project}; kept afterwards)") + "\n")
    with tour.sandbox_environment(str(box.home)):
        rows = tour.Tour(box, narration, chosen).run()
    held = all(row.ok for row in rows)
    if args.json:
        print(json.dumps(_json(box, rows, held), indent=2))
        return exitcodes.OK if held else exitcodes.UNHEALTHY
    print()
    print(tour.table(rows))
    for row in rows:
        for detail in row.details:
            print(f"  {row.provider}: {detail}")
    skipped = [row for row in rows if row.not_here]
    if skipped:
        print(f"hooks executed here for {len(rows) - len(skipped)} agents; n/a for {len(skipped)}:")
        for reason in dict.fromkeys(row.not_here for row in skipped):
            print(f"  {', '.join(row.provider for row in skipped if row.not_here == reason)}: {reason}")
    if held and skipped:
        print("every step that could run held")
    else:
        print("every step held" if held else "some steps did not hold (see above)")
    print(shown(_kept(box)))
    return exitcodes.OK if held else exitcodes.UNHEALTHY


def _kept(box: Any) -> str:
    """The last line: where the sandbox stays (nothing removes it), and what to do with it."""
    return (
        f"the sandbox is kept in {box.root} (its home: {box.home}): look around, then delete that folder, "
        f"or run `{command_line(['elydora', 'demo', str(box.root)])}` to build it again there"
    )


def _json(box: Any, rows: list[Any], held: bool) -> dict[str, Any]:
    failures = [
        {"provider": row.provider, "file": None, "message": detail} for row in rows for detail in row.details
    ]
    agents = [{"provider": row.provider, **row.results, **({"n/a": row.not_here} if row.not_here else {})}
              for row in rows]
    return {
        "ok": held, "sandbox": str(box.root), "home": str(box.home), "kept": True, "agents": agents,
        "failures": failures,
    }


def _is_provider(word: str) -> bool:
    try:
        catalog.canonical_id(word)
    except catalog.UnknownProviderError:
        return False
    return not word.startswith((".", "/"))

