"""``elydora demo``: the whole tour in a sandbox home, run by the CLI itself.

:mod:`.sandbox` builds the home from the configs shipped in ``home/`` (each agent's own settings, comments
and hooks, written for the demo; a leading ``dot-`` in a shipped name stands for ``.``) and proves it
byte-identical afterwards; :mod:`.tour` installs every agent, runs each one's installed guard and audit
entries exactly as the agent would (the machinery of ``elydora verify``, against the real sandbox state),
shows the signed records, freezes, unfreezes and uninstalls.
"""
