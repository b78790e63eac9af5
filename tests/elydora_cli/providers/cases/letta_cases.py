"""Before/after pairs (fixtures/configs) of letta (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("letta", "letta-before.json", "letta-after.json"),
    Case("letta", None, "letta-fresh-after.json"),
]
