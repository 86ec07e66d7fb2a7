"""People-facing output (``robotrules/cli/_ui.py``): the one progress bar ``audit`` and
``bulk`` draw (issue 21: one factory instead of two copies of the Rich set-up)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from robotrules.cli._ui import BYTES, progress_bar


def test_progress_bar_draws_its_columns_on_stderr_and_leaves_no_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    bar = progress_bar("bulk", "never", total=10,
                       counts=("{task.completed:,.0f}/{task.fields[of]}",),
                       after=("{task.fields[origins]} origins",), of="10", origins="0")
    bar.update(completed=4, origins="3")
    bar.stop()
    out, err = capsys.readouterr()
    assert out == ""
    assert "bulk" in err
    assert "4/10" in err
    assert "3 origins" in err
    assert "eta" in err
    assert "\x1b[" in err  # drawn as on a terminal (transient: erased at the end)


def test_progress_bar_counts_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    bar = progress_bar("audit", "never", total=2_000_000, counts=(BYTES,))
    bar.update(completed=1_000_000)
    bar.stop()
    err = capsys.readouterr().err
    assert "audit" in err
    assert "1.0/2.0 MB" in err


def test_rich_markup_in_files_is_text(cli: Any, tmp_path: Path) -> None:
    """File content is never read as Rich markup: '[bold]' stays as written."""
    p = tmp_path / "r.txt"
    p.write_text("User-agent: *\nDisallow: /[red]x[/red]\n")
    r = cli("check", "--robots", str(p), "--agent", "A", "--color", "always",
            "https://e.com/[red]x[/red]")
    assert "/[red]x[/red]" in r.out
    lint = cli("lint", str(p))
    assert "[red]" in lint.out or lint.code in (0, 1)


def _unstyled(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.parametrize("mode", ["always", "never"])
def test_a_long_line_wraps_between_words_on_a_terminal(
        mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: lines wider than the terminal were broken by the terminal inside words
    ('tells ev|eryone', 'disallowe|d'). On a terminal (``--color always``, or a tty with
    ``--color never``) Ui.line wraps between words and indents what follows; every word
    stays whole, and no line is wider than the terminal (COLUMNS, which Rich reads)."""
    import io

    from robotrules.cli._ui import Ui

    monkeypatch.setenv("COLUMNS", "40")
    sentence = ("the rule '/checkout-old' tells everyone which URLs are disallowed, and "
                "a robots.txt that no crawler reads is not known")
    out = io.StringIO()
    ui = Ui(mode, out)
    ui.tty = True  # a terminal, whatever the test's stream is
    ui.line("lint: ", (sentence, "bold"))
    lines = _unstyled(out.getvalue()).splitlines()
    assert len(lines) > 1
    assert max(map(len, lines)) <= 40, lines
    assert all(x.startswith("    ") for x in lines[1:]), lines
    assert " ".join(x.strip() for x in lines) == "lint: " + sentence  # no word cut in two


def test_a_long_line_stays_one_line_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a pipe or a file a line is the unit grep and scripts read: never wrapped."""
    import io

    from robotrules.cli._ui import Ui

    monkeypatch.setenv("COLUMNS", "40")
    out = io.StringIO()
    Ui("never", out).line("x " * 60)
    assert out.getvalue() == "x " * 60 + "\n"


def test_lint_on_a_terminal_never_cuts_a_word(cli: Any, tmp_path: Path) -> None:
    """Issue 39's reproduction: lint's findings at 60 columns broke '/checkout-|old' and
    'tells ev|eryone'. Each finding's message reads whole once the wrapped lines are
    joined, and no line is wider than the terminal."""
    import json

    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /checkout-old\nDisallow: /checkout-old\n"
                      "Disalow: /tmp/\nCrawl-delay: fast\nSitemap: /sitemap.xml\n")
    r = cli("lint", str(robots), "--color", "always", env={"COLUMNS": "60"})
    text = _unstyled(r.out)
    assert max(len(x) for x in text.splitlines()) <= 60, text
    joined = " ".join(x.strip() for x in text.splitlines())
    found = cli("lint", str(robots), "--json").out.splitlines()
    assert found
    for finding in map(json.loads, found):
        assert finding["message"] in joined, (finding["message"], text)
