"""A system-scope user's identity, created on first use.

Under ``--scope system`` the hooks run as each user, in ``~/.elydora/<agent id>@<user>/`` (see
:mod:`elydora_cli.managed`). The audit hook creates that directory and spools the first event; the flusher
it starts (``--provision <provider id>``) then calls :func:`provision`, which creates a local identity whose
agent id is the directory's name, so every record the user's ledger signs names the OS user. The events
already spooled are adopted; any other leftover (a key, a ledger, a chain state without ``config.json``) is
refused, so two chains are never mixed: the events stay spooled and the refusal goes to ``error.log``.

The identity decides nothing about blocking: under system scope the guard reads root-owned policy only.
"""

from __future__ import annotations

import os

from ..statefiles import CONFIG, SPOOL


def provision(agent_dir: str, provider_id: str) -> bool:
    """Create the identity of ``agent_dir`` when it has none; whether one was created."""
    if os.path.lexists(os.path.join(agent_dir, CONFIG)):
        return False
    from elydora_config import Transaction, keys

    from .. import catalog, identity

    facts = catalog.provider(provider_id)
    agent_id = identity.check_agent_id(os.path.basename(agent_dir))
    key = keys.generate_private_key()
    config = identity.AgentConfig(identity.LOCAL_ORG, agent_id, identity.key_id(key), None, facts.id)
    with Transaction(os.path.dirname(agent_dir), lock_timeout=5.0) as tx:
        identity.stage_new_identity(tx, agent_dir, config, key, adopt=(SPOOL,))
    return True
