"""Package of the agents' shared shapes; see docs/architecture.md."""
