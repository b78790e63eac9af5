"""Before/after pairs (fixtures/configs) of kiroagent (see provider_cases.Case): our custom agent file, fresh and
after the user edited it (a prompt, resources, their own hooks)."""

from elydora_testkit.provider_cases import Case

CASES = [
    Case("kiroagent", None, "kiroagent-fresh-after.json"),
    Case("kiroagent", "kiroagent-before.json", "kiroagent-after.json"),
]
