"""``elydora hooks capabilities``: the discovery document of the hook interface (always JSON).

It names the hook contract (``neutral-v1``: events, effects, input limit), the flags, and one entry per
provider adapter. It reads only the catalog and the package metadata (see
:mod:`elydora_cli.neutral.capabilities`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser = sub.add_parser("hooks", help="describe the hook interface (hooks capabilities)")
    verbs = parser.add_subparsers(dest="hooks_command", metavar="VERB", required=True)
    capabilities = verbs.add_parser("capabilities", help="print the discovery document (JSON)")
    capabilities.add_argument("--json", action="store_true", help="accepted; the output is always JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..neutral.capabilities import render

    sys.stdout.buffer.write(render())
    sys.stdout.flush()
    return 0
