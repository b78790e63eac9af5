"""Before/after pairs (fixtures/configs) of copilot (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("copilot", "copilot-before.json", "copilot-after.json"),
    Case(
        "copilot",
        "copilot-legacy-project-before.json",
        "copilot-legacy-project-after.json",
        legacy=True,
        target=".github/hooks/hooks.json",
        in_project=True,
    ),
]
