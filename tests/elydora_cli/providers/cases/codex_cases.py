"""Before/after pairs (fixtures/configs) of codex (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("codex", "codex-before.json", "codex-after.json", legacy=True),
    Case("codex", None, "codex-fresh-after.json"),
]
