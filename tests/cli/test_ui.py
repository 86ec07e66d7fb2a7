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
