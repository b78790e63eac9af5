"""elydora: install, check and remove Elydora's guard and audit hooks in AI coding agents."""

__version__ = "0.1.0"
