"""Before/after pairs (fixtures/configs) of kimi (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("kimi", "kimi-before.toml", "kimi-after.toml"),
    Case("kimi", "kimi-inline-before.toml", "kimi-inline-after.toml"),
    Case("kimi", "kimi-legacy-before.toml", "kimi-legacy-after.toml", dirs=(".kimi",)),
]
