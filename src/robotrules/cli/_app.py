"""The ``robotrules`` command (Click): check, lint, fetch, bulk, diff, agents, serve, dataset.

Every sub-command writes people-friendly text (Rich: colour and tables on a terminal, never
with ``NO_COLOR`` or ``--color never``) or, with ``--json``, JSON Lines that scripts can rely
on byte for byte.

A group run without a command (``robotrules``, ``robotrules dataset``) prints its commands on
stdout and exits 0, as ``--help`` does.

Exit status: 0 ok; 1 the answer scripts test for (a disallowed URL, a lint warning, a diff);
2 a usage, input or environment error (also rows of ``bulk`` that failed, ``serve`` on a busy
port, a missing extra), always one line on stderr and never a traceback; 3 an answer rests on
a robots.txt that could not be fetched (``_outcomes``; ``--no-fail-on-unreachable`` turns it
off); 130 on Ctrl-C, silently. A reader that goes away (``robotrules ... | head``) ends the
command quietly with 0, as Unix filters do.

Start-up: the group knows each command by module path and one line of help
(:class:`LazyGroup`), so ``robotrules --help`` imports no command, and a command imports only
its own module. The ``dataset`` group lives in another extra (``robotrules.dataset.cli``) and
``serve`` needs the ``web`` extra; both are listed always and say what to install when it is
missing. Shell completion is Click's: ``eval "$(_ROBOTRULES_COMPLETE=bash_source
robotrules)"`` (``zsh_source``, ``fish_source`` likewise).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from robotrules import RobotrulesError, __version__

from ._common import CliError
from ._extra import CLI_DEPENDENCIES, missing_extra

__all__ = ["LazyGroup", "cli", "main"]

PROG = "robotrules"
COMPLETE_VAR = "_ROBOTRULES_COMPLETE"

# name -> (module:attribute, one line of help). The order is the order of the listing.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("robotrules.cli._check:check",
              "may an agent fetch these URLs? (exit 1 if any is disallowed)"),
    "lint": ("robotrules.cli._lint:lint_cmd",
             "check a robots.txt for mistakes (exit 1 on any warning or error)"),
    "fetch": ("robotrules.cli._fetch:fetch",
              "fetch a site's robots.txt and tell its HTTP story"),
    "bulk": ("robotrules.cli._bulk:bulk",
             "verdicts for many URLs x agents, one fetch per origin"),
    "diff": ("robotrules.cli._diff:diff",
             "what a change to a robots.txt does: rules and verdicts that flip"),
    "agents": ("robotrules.cli._ranges:agents",
               "which well-known crawlers a robots.txt blocks, and by which group"),
    "audit": ("robotrules.cli._audit:audit", "crawlers in access logs: real? obeying robots.txt?"),
    "serve": ("robotrules.cli._serve:serve",
              "open the web tester on this machine (needs robotrules[web])"),
    "dataset": ("robotrules.dataset.cli:dataset",
                "robots.txt at dataset scale: archives, verdicts, census "
                "(needs robotrules[dataset])"),
}

EXAMPLES = """\
\b
examples:
  robotrules check https://example.com/private --agent Googlebot
  robotrules lint examples/robots.txt
  robotrules agents https://example.com
  robotrules diff examples/old.txt examples/new.txt --agent Googlebot
  robotrules bulk examples/urls.txt -a GPTBot -a Googlebot > verdicts.csv

\b
exit status: 0 ok, 1 a disallowed URL / lint warning / difference, 2 usage or input error,
3 an answer rests on a robots.txt that could not be fetched (see docs/cli.md).
Run 'robotrules COMMAND --help' for each command's options and examples."""


def _missing_dataset(name: str) -> click.Command:
    """Stands in for the ``dataset`` group when its extra is not installed."""

    @click.command(name, context_settings={"ignore_unknown_options": True,
                                           "allow_extra_args": True, "help_option_names": []},
                   add_help_option=False)
    def missing() -> None:
        raise CliError("the dataset commands need the dataset extra: "
                       "pip install 'robotrules[dataset]' "
                       "(from a checkout: pip install -e '.[dataset]')")

    missing.help = COMMANDS[name][1]
    return missing


class LazyGroup(click.Group):
    """A group whose commands are imported only when one is run (or completed).

    The listing in ``--help`` comes from :data:`COMMANDS`, so it costs no import.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attr = target[0].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            if cmd_name == "dataset":  # the extra (or the module itself) is not installed
                return _missing_dataset(cmd_name)
            raise
        command: click.Command = getattr(module, attr)
        _guard_interrupts(command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            close = _closest(name, list(COMMANDS))
            hint = f"; did you mean '{close}'?" if close else ""
            raise click.UsageError(f"no command {name!r}{hint} "
                                   f"(commands: {', '.join(COMMANDS)})", ctx)
        return super().resolve_command(ctx, args)


def _closest(name: str, options: list[str]) -> str | None:
    import difflib

    found = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return found[0] if found else None


@click.group(
    PROG, cls=LazyGroup, invoke_without_command=True, epilog=EXAMPLES,
    subcommand_metavar="[COMMAND] [ARGS]...",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
@click.option("--color", type=click.Choice(("auto", "always", "never")), default="auto",
              help="colour output: auto (on a terminal, unless NO_COLOR), always, never")
@click.pass_context
def cli(ctx: click.Context, color: str) -> None:
    """robots.txt from the shell: test URLs, lint files, follow fetches, compare versions."""
    ctx.ensure_object(dict)
    ctx.obj["color"] = color
    if ctx.invoked_subcommand is None:
        raise _NoCommand(ctx)


class _NoCommand(Exception):
    def __init__(self, ctx: click.Context) -> None:
        self.ctx = ctx


def _short_usage(ctx: click.Context) -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [ctx.get_usage(), "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", f"Run '{PROG} --help' for the options and examples, "
                  f"'{PROG} COMMAND --help' for a command's."]
    return "\n".join(lines)


class Interrupted(Exception):
    """Ctrl-C, re-raised past Click (which would print a blank line and 'Aborted!')."""


def _guard_interrupts(command: click.Command) -> None:
    """Wrap every callback so that KeyboardInterrupt reaches :func:`main` as Interrupted."""
    callback = command.callback
    if callback is not None and not getattr(callback, "_robotrules_guarded", False):
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return callback(*args, **kwargs)
            except KeyboardInterrupt:
                raise Interrupted from None

        guarded._robotrules_guarded = True  # type: ignore[attr-defined]
        command.callback = guarded
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _guard_interrupts(sub)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if os.environ.get(COMPLETE_VAR):
        from click.shell_completion import shell_complete

        return shell_complete(cli, {}, PROG, COMPLETE_VAR, os.environ[COMPLETE_VAR])
    try:
        try:
            with cli.make_context(PROG, args) as ctx:
                return _status(cli.invoke(ctx))
        except (EOFError, KeyboardInterrupt):
            raise Interrupted from None
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except _NoCommand as exc:  # a group without a command: its help, on stdout, exit 0
        sys.stdout.write(_short_usage(exc.ctx) + "\n")
        return _status(0)
    except click.UsageError as exc:
        return _fail(_usage_line(exc))
    except click.ClickException as exc:
        return _fail(exc.format_message())
    except (Interrupted, click.exceptions.Abort):
        _quiet_stdout()
        return 130
    except SystemExit as exc:  # a sub-group (dataset) that exits by itself
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else _fail(str(code)))
    except CliError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        return _reader_gone()
    except RobotrulesError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
    except ImportError as exc:  # Rich (loaded when a command first writes) missing
        name = (exc.name or "").partition(".")[0]
        if name in CLI_DEPENDENCIES:
            _write_err(missing_extra(name))
            return 2
        return _fail(f"internal error: {type(exc).__name__}: {exc} "
                     "(please report it with the command line)")
    except Exception as exc:  # a bug: still one line, with what to report
        return _fail(f"internal error: {type(exc).__name__}: {exc} "
                     "(please report it with the command line)")


def _status(rv: Any) -> int:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _reader_gone()
    return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0


def _reader_gone() -> int:
    """The reader of stdout went away (``robotrules ... | head``): it has what it wanted, so
    stop quietly with 0, as Unix filters do (a ``set -o pipefail`` script goes on), and point
    stdout at /dev/null so that Python's flush at exit raises no second error."""
    _quiet_stdout()
    return 0


def _usage_line(exc: click.UsageError) -> str:
    ctx = exc.ctx
    where = ctx.command_path if ctx is not None else PROG
    message = " ".join(exc.format_message().split())
    return f"{where}: {message} (see '{where} --help')"


def _quiet_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _write_err(text: str) -> None:
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass


def _fail(message: str) -> int:
    from ._ui import visible

    line = " ".join(visible(message).splitlines()) or "error"
    prefix = "" if line.startswith(PROG) else f"{PROG}: "
    _write_err(f"{prefix}{line}")
    return 2
