"""``robotrules.cli._bulk_input``: bulk's input reader, used without Click (issue 21).

The reader is plain Python: bytes to lines (LF, CRLF, a lone CR), lines to URLs (plain, CSV,
JSON Lines), each line on its own. Its hostile-input cases live in test_hostile.py; these
say that it stands alone and what it yields.
"""

from __future__ import annotations

import io
import subprocess
import sys

from robotrules.cli._bulk_input import MAX_LINE, LineError, records, split_lines
from tests.cli.conftest import SRC


def _urls(data: bytes) -> list[tuple[int, str, str | None]]:
    return [(n, url, err) for n, url, err, _ in records(split_lines(io.BytesIO(data)))]


def test_reads_without_click() -> None:
    """Importing and running the reader never imports Click (hidden here: importing it fails)."""
    code = ("import sys, io; sys.modules['click'] = None\n"
            "from robotrules.cli._bulk_input import records, split_lines\n"
            "rows = list(records(split_lines(io.BytesIO(b'url\\nhttps://a.example/\\n'))))\n"
            "assert rows == [(2, 'https://a.example/', None, True)], rows\n"
            "assert 'click' not in [m for m in sys.modules if sys.modules[m] is not None]\n")
    p = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": SRC, "PATH": ""},
                       capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr


def test_plain_csv_and_jsonl() -> None:
    assert _urls(b"https://a.example/\r\n# note\r\nhttps://b.example/x\r") == [
        (1, "https://a.example/", None), (3, "https://b.example/x", None)]
    assert _urls(b"id,url\n1,https://a.example/\n2,\n") == [
        (2, "https://a.example/", None), (3, "2,", "CSV: no URL in column 2")]
    assert _urls(b'{"url": "https://a.example/"}\n{"u": 1}\n') == [
        (1, "https://a.example/", None), (2, '{"u": 1}', 'not a JSON object with a "url" string')]


def test_a_line_over_the_cap_is_an_error_row_and_reading_goes_on() -> None:
    data = b"https://a.example/\n" + b"x" * (MAX_LINE + 10) + b"\nhttps://b.example/\n"
    lines = list(split_lines(io.BytesIO(data), chunk=4096))
    assert isinstance(lines[1][1], LineError)
    assert [u for _, u, e in _urls(data) if e is None] == ["https://a.example/",
                                                           "https://b.example/"]
