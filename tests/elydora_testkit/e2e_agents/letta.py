"""Letta Code: not run by the suite (the reason below)."""

SKIP = (
    "Letta Code is not driven by the suite yet"
)
