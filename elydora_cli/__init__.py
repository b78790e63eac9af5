"""elydora: install, check and remove Elydora's guard and audit hooks in AI coding agents."""

from .pathlibstart import import_pathlib

__version__ = "0.1.0"

import_pathlib()  # before any module of the package imports pathlib (see elydora_cli/pathlibstart.py)
