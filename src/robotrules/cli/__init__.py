"""The ``robotrules`` command: check, lint, fetch, bulk, diff and agents (needs ``[cli]``).

Every sub-command writes people-friendly text (colour on a terminal, never with NO_COLOR) or,
with ``--json``, JSON Lines. Exit status: 0 ok, 1 the answer scripts test for (a disallowed
URL, a lint warning, a diff), 2 a usage or input error, always one line on stderr and never a
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from robotrules import RobotrulesError, __version__

from . import _agents, _bulk, _check, _diff, _fetch, _lint
from ._common import CliError

__all__ = ["build_parser", "main"]

DESCRIPTION = """\
robots.txt from the shell: test URLs, lint files, follow fetches, compare versions.

examples:
  robotrules check https://example.com/private --agent Googlebot
  robotrules lint robots.txt
  robotrules agents https://example.com
  robotrules diff old.txt new.txt --agent Googlebot
  robotrules bulk urls.txt --agent GPTBot --agent Googlebot --format csv > verdicts.csv

Run 'robotrules COMMAND --help' for each command's options and examples."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the usage is one --help away)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.prog}: {message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="robotrules", description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"robotrules {__version__}")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour output (default: auto, on a terminal unless NO_COLOR)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _check.add(sub)
    _lint.add(sub)
    _fetch.add(sub)
    _bulk.add(sub)
    _diff.add(sub)
    _agents.add(sub)
    try:  # the web tester is another extra; its module registers itself when present
        from robotrules.web import add_serve_command
    except ImportError:
        pass
    else:
        add_serve_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help(sys.stderr)
            return 2
        status: int = args.func(args)
        sys.stdout.flush()
        return status
    except CliError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return _fail("interrupted")
    except BrokenPipeError:
        # The reader went away (robotrules ... | head): stop quietly, without a second error
        # when Python flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return _fail("output closed (broken pipe)")
    except RobotrulesError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
    except Exception as exc:  # a bug: still one line, with what to report
        return _fail(f"internal error: {type(exc).__name__}: {exc} "
                     "(please report it with the command line)")


def _fail(message: str) -> int:
    prefix = "" if message.startswith("robotrules") else "robotrules: "
    try:
        sys.stderr.write(f"{prefix}{message}\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass
    return 2
