"""Before/after pairs (fixtures/configs) of kiroide (see provider_cases.Case): the hook file is wholly ours, so the
only pair is a fresh install (a file of that name holding anything else is refused: test_provider_kiroide.py)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("kiroide", None, "kiroide-fresh-after.json"),
]
