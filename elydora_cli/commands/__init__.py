"""The sub-commands of ``elydora``: each module exposes ``register(subparsers)``."""
