"""Before/after pairs (fixtures/configs) of qwen (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("qwen", "qwen-before.jsonc", "qwen-after.jsonc"),
    Case("qwen", None, "qwen-fresh-after.jsonc"),
]
