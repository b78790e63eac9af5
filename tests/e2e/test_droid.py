"""End to end, Droid only: our hooks go where Droid loads them, whatever hooks file the user has."""

from __future__ import annotations

from typing import Any

import pytest
from elydora_testkit.e2e_harness import Sandbox
from elydora_testkit.e2e_session import open_session

pytestmark = pytest.mark.e2e


# -- Droid: our hooks go where Droid loads them ----------------------------------------------------------------
@pytest.mark.parametrize("existing", ["settings.local.json", "hooks/hooks.json"])
def test_droid_hooks_land_where_droid_loads_them(existing: str, agent_cache: dict[str, Any],
                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """A user file ``{"hooks": {}}`` that Droid 0.225.2 never reads hooks from (``settings.local.json``) or reads
    only as a bare event map (the legacy ``hooks/hooks.json``): after install the guard still blocks."""
    def user_file(sb: Sandbox) -> None:
        path = sb.home / ".factory" / existing
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('{"hooks": {}}\n')

    for s in open_session("droid", agent_cache, tmp_path_factory.mktemp("e2e-droid-source"), user_file):
        assert s.status.stdout.split()[1:2] == ["healthy"], s.status.stdout + s.status.stderr
        s.sandbox.elydora("agent", "freeze", "--provider", "droid", "--root", str(s.sandbox.home))
        run = s.run("block")
        assert not run.proof_exists and s.sandbox.runtime_ran("guard"), f"Droid did not run our guard\n{run.describe()}"
