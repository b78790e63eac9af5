"""Reference before/after pairs of droid (see provider_cases.Case)."""

from provider_cases import Case

CASES = [
    Case("droid", "droid-before.jsonc", "droid-after.jsonc"),
    Case("droid", "droid-settings-before.jsonc", "droid-settings-after.jsonc", target=".factory/settings.json"),
    Case(
        "droid", "droid-nested-legacy-before.json", "droid-nested-legacy-after.json", target=".factory/hooks/hooks.json"
    ),
    Case("droid", None, "droid-fresh-after.jsonc"),
]
