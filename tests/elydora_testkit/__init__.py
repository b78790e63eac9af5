"""Helpers shared by test files (importable as a package: tests/ is on pytest's pythonpath)."""
