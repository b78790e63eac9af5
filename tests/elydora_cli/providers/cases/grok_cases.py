"""Before/after pairs (fixtures/configs) of grok (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("grok", "grok-before.json", "grok-after.json"),
]
