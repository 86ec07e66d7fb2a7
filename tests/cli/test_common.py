"""The options every command shares (``robotrules/cli/_common.py``): numbers validated by name
(issue 12 item 6, issue 16), ``--min-ttl 0`` allowed (RFC 9111 4.2.1 within RFC 9309 2.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import one_line_error


@pytest.mark.parametrize(
    ("command", "option", "value"),
    [
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "-1"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "nan"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "inf"),
        (("check", "--agent", "A", "https://e.com/"), "--timeout", "0"),
        (("check", "--agent", "A", "https://e.com/"), "--min-ttl", "-5"),
        (("check", "--agent", "A", "https://e.com/"), "--min-ttl", "nan"),
        (("fetch", "https://e.com/"), "--timeout", "-inf"),
        (("lint", "https://e.com/"), "--min-ttl", "inf"),
        (("agents", "https://e.com/"), "--timeout", "ten"),
        (("diff", "https://e.com/", "https://f.com/"), "--timeout", "NaN"),
        (("bulk", "-", "--agent", "A"), "--timeout", "1e999"),
        (("bulk", "-", "--agent", "A"), "--min-ttl", "-0.5"),
    ],
)
def test_issue12_6_every_number_is_validated(cli: Any, command: tuple[str, ...], option: str,
                                             value: str) -> None:
    """Issue 12 item 6 and issue 16: one line naming the option, exit 2, nothing fetched."""
    r = cli(*command, option, value, input="")
    assert one_line_error(r), r.err
    assert option in r.err


def test_min_ttl_zero_is_allowed(cli: Any, sample_robots: Path) -> None:
    r = cli("check", "--robots", str(sample_robots), "--agent", "A", "--min-ttl", "0", "/x")
    assert r.code == 0, r.err
