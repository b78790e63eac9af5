"""Before/after pairs (fixtures/configs) of crush (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("crush", "crush-before.json", "crush-after.json"),
]
