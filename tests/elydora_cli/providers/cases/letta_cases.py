"""Before/after pairs (fixtures/configs) of letta (see provider_cases.Case).

The after-files keep the reference installer's shape: an audit group on ``PostToolUseFailure`` too. Letta Code
0.34.12 runs the ``PostToolUse`` hooks for failed calls as well and then the ``PostToolUseFailure`` ones, so that
group recorded every failed call twice (docs/e2e.md, finding 8); we register ``PostToolUse`` only.
:func:`no_failure_event` drops the Elydora group from the after-value (and the event, once it is empty).
"""

import json
from typing import Any

from elydora_testkit.provider_cases import REF_MARK, Case

FAILURE_EVENT = "PostToolUseFailure"


def no_failure_event(reference: dict[str, Any]) -> dict[str, Any]:
    """The after-value without the Elydora group on the failure event."""
    hooks = dict(reference["hooks"])
    kept = [group for group in hooks.pop(FAILURE_EVENT, []) if REF_MARK not in json.dumps(group)]
    if kept:
        hooks[FAILURE_EVENT] = kept
    return {**reference, "hooks": hooks}


CASES = [
    Case("letta", "letta-before.json", "letta-after.json", deviation=no_failure_event),
    Case("letta", None, "letta-fresh-after.json", deviation=no_failure_event),
]
