"""Before/after pairs (fixtures/configs) of gemini (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("gemini", "gemini-before.jsonc", "gemini-after.jsonc"),
    Case("gemini", None, "gemini-fresh-after.jsonc"),
]
