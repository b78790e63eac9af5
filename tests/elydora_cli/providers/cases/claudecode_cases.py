"""Before/after pairs (fixtures/configs) of claudecode (see provider_cases.Case)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("claudecode", "claudecode-before.json", "claudecode-after.json"),
    Case("claudecode", "claudecode-legacy-before.json", "claudecode-legacy-after.json", legacy=True),
]
