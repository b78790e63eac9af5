"""Before/after pairs (fixtures/configs) of cursor (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("cursor", "cursor-before.json", "cursor-after.json", legacy=True),
]
