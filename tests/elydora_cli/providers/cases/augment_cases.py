"""Reference before/after pairs of augment (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("augment", "augment-before.json", "augment-after.json"),
]
