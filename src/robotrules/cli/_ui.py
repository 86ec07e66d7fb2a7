"""People-facing output: a Rich console per run, safe text, robots.txt highlighting, tables.

Rich is imported here and only here, and only when a command writes human output (``--json``
never loads it). Everything a file, a server or a user supplied goes through :func:`visible`
before it reaches the terminal: control characters become visible symbols (``ESC`` is shown
as ``␛``, so ``ESC ]0;title BEL`` cannot set the window title) and is put into
:class:`rich.text.Text` pieces, never parsed as Rich markup (``[red]`` in a file is text).
JSON output (``_common.emit_json``) is untouched: scripts get the exact bytes.
"""

from __future__ import annotations

import os
import re
import sys
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table
    from rich.text import Text

__all__ = ["BYTES", "ProgressBar", "Ui", "progress_bar", "visible"]

# C0 controls (but TAB), DEL and C1 controls; bidirectional overrides and isolates, which can
# make a line read differently from what it contains ("Trojan Source", CVE-2021-42574).
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _show(m: re.Match[str]) -> str:
    c = m.group()
    o = ord(c)
    if o < 0x20:
        return chr(0x2400 + o)  # U+2400 block: ␀ ␁ … ␛ …
    if o == 0x7F:
        return "\u2421"  # ␡
    return f"\\u{o:04x}" if o > 0xFF else f"\\x{o:02x}"


def visible(text: str) -> str:
    """``text`` with every control character replaced by a visible stand-in (tab stays)."""
    return _CONTROL.sub(_show, text)


class Ui:
    """One run's human output on a stream (stdout unless told).

    Without colour (a pipe, ``NO_COLOR``, ``--color never``) lines are plain strings and Rich
    is not even imported unless a table is drawn; with colour every line goes through Rich.

    On a terminal a line longer than the terminal is wrapped between words (continuation
    lines indented), so the terminal never breaks a word in two; in a pipe or a file a line
    stays one line (``grep`` and scripts read it whole). Tables end their lines without
    padding in plain output.
    """

    def __init__(self, mode: str = "auto", file: IO[str] | None = None) -> None:
        self.mode = mode
        self.file = file or sys.stdout
        self.color = _wants_color(self.file, mode)
        self.tty = mode == "always" or _isatty(self.file)
        self._console: Console | None = _console(self.file, mode) if self.color else None

    @property
    def console(self) -> Console:
        if self._console is None:
            self._console = _console(self.file, self.mode)
        return self._console

    # -- building blocks -------------------------------------------------------------------

    @staticmethod
    def text(*parts: str | tuple[str, str]) -> Text:
        """A Text from plain strings and ``(string, style)`` pairs, all made visible."""
        from rich.text import Text

        out = Text()
        for part in parts:
            if isinstance(part, tuple):
                out.append(visible(part[0]), style=part[1])
            else:
                out.append(visible(part))
        return out

    def robots_line(self, line: str, style: str = "") -> Text | str:
        """One robots.txt line, highlighted: the key, the separator, wildcards, comments."""
        shown = visible(line)
        if not self.color:
            return shown
        from rich.text import Text

        text = Text(shown, style=style)
        key = re.match(r"\s*([^:#\s][^:#]*?)\s*:", shown)
        if key:
            text.stylize("bold cyan", key.start(1), key.end(1))
            rest = key.end()
        else:
            rest = 0
        hash_at = shown.find("#", rest)
        end = len(shown) if hash_at < 0 else hash_at
        for m in re.finditer(r"[*$]", shown[rest:end]):
            text.stylize("bold magenta", rest + m.start(), rest + m.end())
        if hash_at >= 0:
            text.stylize("dim", hash_at, len(shown))
        return text

    def table(self, *columns: str | tuple[str, dict[str, Any]], title: str | None = None
              ) -> Table:
        from rich import box
        from rich.table import Table

        table = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left", pad_edge=False,
                      show_edge=False, title_style="bold")
        for col in columns:
            name, kw = (col, {}) if isinstance(col, str) else col
            table.add_column(name, **kw)
        return table

    # -- writing -----------------------------------------------------------------------------

    def line(self, *parts: str | tuple[str, str] | Text) -> None:
        """One line made of strings, ``(string, style)`` pairs and Texts (shown visibly)."""
        if not self.color:
            plain = "".join(
                visible(p) if isinstance(p, str) else visible(p[0]) if isinstance(p, tuple)
                else p.plain for p in parts)
            if not self.tty or len(plain) <= self.console.width:
                self.file.write(plain + "\n")
                return
        from rich.text import Text

        out = Text()
        for part in parts:
            if isinstance(part, Text):
                out.append_text(part)
            elif isinstance(part, tuple):
                out.append(visible(part[0]), style=part[1])
            else:
                out.append(visible(part))
        width = self.console.width
        if not self.tty or len(out) <= width:
            self._write(out)
            return
        # Wider than the terminal: wrapped between words (a word longer than a line is the
        # only thing folded), continuation lines indented under the first.
        for i, piece in enumerate(out.wrap(self.console, max(20, width - _INDENT))):
            piece.rstrip()
            self._write(Text(" " * _INDENT) + piece if i else piece)

    def _write(self, text: Text) -> None:
        """One unwrapped line. Rich's print costs ~0.15 ms a line (lint of a 500 KiB file
        writes 100,000 of them), so a line is rendered here, each styled segment through
        Rich's own (cached) ANSI rendering."""
        system = self.console._color_system  # a ColorSystem, or None: no styles at all
        if system is None:
            self.file.write(text.plain + "\n")
            return
        parts = [seg.style.render(seg.text, color_system=system) if seg.style else seg.text
                 for seg in text.render(self.console, end="")]
        self.file.write("".join(parts) + "\n")

    def render(self, renderable: Any) -> None:
        if self.color:
            self.console.print(renderable, highlight=False)
            return
        # Plain output: Rich pads every cell to its column's width; the lines end at their
        # last character instead.
        with self.console.capture() as captured:
            self.console.print(renderable, highlight=False)
        self.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


_INDENT = 4  # continuation lines of a wrapped line

#: In :func:`progress_bar`'s ``counts``: bytes done of the total, in B/kB/MB (Rich's download
#: column).
BYTES = "\0bytes"


class ProgressBar:
    """A started Rich progress bar on stderr (:func:`progress_bar`): ``update(completed=...,
    field=...)`` as work goes on, ``stop()`` at the end (the bar is transient: it leaves no
    line behind)."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self.progress = progress
        self.task = task

    def update(self, **fields: Any) -> None:
        self.progress.update(self.task, **fields)

    def stop(self) -> None:
        self.progress.stop()


def progress_bar(label: str, color: str, *, total: float | None, counts: Sequence[str] = (),
                 after: Sequence[str] = (), refresh_per_second: float = 10,
                 **fields: Any) -> ProgressBar:
    """The commands' one progress bar on stderr (``audit``, ``bulk``), started: ``label``,
    the bar, the ``counts`` columns, the time elapsed, "eta" and the time left, then the
    ``after`` columns. Columns are Rich text templates over the task (``{task.completed}``,
    ``{task.fields[name]}``, with ``fields`` their first values) or :data:`BYTES`. Drawn on
    a terminal even when stderr is redirected by a test (the caller decides whether to show
    it), without colour for ``--color never``."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    def column(spec: str) -> ProgressColumn:
        return DownloadColumn() if spec == BYTES else TextColumn(spec)

    console = Console(file=sys.stderr, force_terminal=True,
                      no_color=True if color == "never" else None)
    progress = Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(),
        *map(column, counts), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
        *map(column, after), console=console, transient=True,
        refresh_per_second=refresh_per_second)
    task = progress.add_task(label, total=total, **fields)
    progress.start()
    return ProgressBar(progress, task)


def _wants_color(file: IO[str], mode: str) -> bool:
    """``--color``, then NO_COLOR (no-color.org) and FORCE_COLOR, then "is it a terminal"."""
    if mode in ("always", "never"):
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(file) and not _term_plain()


def _console(file: IO[str], mode: str) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # Rich would exit with status 1, the "disallowed" answer; let the CLI end
            # quietly, as for every other write to a closed pipe (cli._app._reader_gone).
            self.quiet = True
            raise BrokenPipeError

    kwargs: dict[str, Any] = {"file": file, "highlight": False, "emoji": False,
                              "markup": False, "legacy_windows": False}
    if mode == "always":
        kwargs["force_terminal"] = True
        kwargs["no_color"] = False  # an explicit flag outranks NO_COLOR (no-color.org)
        kwargs["color_system"] = "standard" if _term_plain() else "auto"
    elif mode == "never" or os.environ.get("NO_COLOR"):
        # NO_COLOR (no-color.org): no colour, and no bold or dim either: plain text
        kwargs["no_color"] = True
        kwargs["color_system"] = None
    tty = mode == "always" or _isatty(file)
    if not tty:
        # A pipe or a file: no terminal to measure. COLUMNS when it is set (a script may ask
        # for a width), else wide enough that tables keep each row on one line where they can.
        kwargs["width"] = _columns() or 160
    return _Console(**kwargs)


def _term_plain() -> bool:
    return os.environ.get("TERM", "") in ("", "dumb", "unknown")


def _isatty(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


def _columns() -> int:
    try:
        return int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        return 0
