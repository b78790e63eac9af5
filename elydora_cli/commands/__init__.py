"""The sub-commands of ``elydora``: each module exposes ``register(subparsers)``, and every parser it is given is
a :class:`Parser`.

argparse keeps no public list of a parser's arguments; ``elydora help`` and the completion scripts read the
command tree from :attr:`Parser.actions` instead.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose :attr:`actions` lists every argument it was given, in order.

    :meth:`add_argument` and :meth:`add_subparsers` record what they add. An argument shown under a title of its
    own, or excluding others, is added through :meth:`add_group` or :meth:`add_exclusive_group`: argparse's
    ``add_argument_group`` and ``add_mutually_exclusive_group`` would not record it.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.actions: list[argparse.Action] = []  # before argparse's __init__, which adds --help
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.actions.append(action)
        return action

    def add_subparsers(self, *args: Any, **kwargs: Any) -> Any:
        """argparse's, the action recorded (typed ``Any``: its declared type is argparse's private
        ``_SubParsersAction``). Its sub-parsers are of this parser's class unless ``parser_class`` says."""
        action = super().add_subparsers(*args, **kwargs)
        self.actions.append(action)
        return action

    def add_group(self, title: str) -> ArgumentGroup:
        """Arguments listed under ``title`` in the help."""
        return ArgumentGroup(self.add_argument_group(title).add_argument, self.actions)

    def add_exclusive_group(self) -> ArgumentGroup:
        """Arguments of which at most one may be given."""
        return ArgumentGroup(self.add_mutually_exclusive_group().add_argument, self.actions)

    def subcommands(self) -> dict[str, Parser]:
        """Each sub-command's (or verb's) name -> its parser; empty where there are none."""
        for action in self.actions:
            if not action.option_strings and isinstance(action.choices, dict):
                return {name: sub for name, sub in action.choices.items() if isinstance(sub, Parser)}
        return {}


class ArgumentGroup:
    """One of argparse's argument groups, whose arguments are recorded in their parser's :attr:`Parser.actions`."""

    def __init__(self, add: Callable[..., argparse.Action], recorded: list[argparse.Action]) -> None:
        self._add = add
        self._recorded = recorded

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """The same arguments as :meth:`argparse.ArgumentParser.add_argument`."""
        action = self._add(*args, **kwargs)
        self._recorded.append(action)
        return action
