"""Auggie: not run by the suite (the reason below)."""

SKIP = (
    "Auggie 0.36.0 runs offline, but in an earlier offline trial Claude-style hooks in "
    "~/.augment/settings.json never fired, so there is nothing to assert yet"
)
