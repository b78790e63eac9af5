"""Before/after pairs (fixtures/configs) of augment (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("augment", "augment-before.json", "augment-after.json"),
]
