"""Package of the installer engine; see docs/architecture.md."""
