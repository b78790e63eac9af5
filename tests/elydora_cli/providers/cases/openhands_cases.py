"""Before/after pairs (fixtures/configs) of openhands (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("openhands", "openhands-before.json", "openhands-after.json"),
]
