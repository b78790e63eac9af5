"""Before/after pairs (fixtures/configs) of qoder (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("qoder", "qoder-before.json", "qoder-after.json"),
]
