"""Package of the standalone runtime templates; see docs/runtime.md."""
