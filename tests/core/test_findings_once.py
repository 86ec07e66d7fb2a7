"""Findings never tokenize twice (issue 11): the fast tokenizer notes the lines the careful path
would have a finding for, and ``findings`` reads only those lines again. This checks that the
result equals a careful pass over every line, on the real corpus and on generated bodies."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import Dialect
from robotrules import _tokenize as T
from tests.conftest import SHARED, missing
from tests.core.gen import rand_body

DIALECTS: tuple[Dialect, ...] = ("rfc9309", "google", "1994")


def _careful(text: str, dialect: Dialect) -> list[robotrules.Finding]:
    out: list[robotrules.Finding] = []
    T.tokenize(text, dialect, out)
    return out


def _noted(text: str, dialect: Dialect) -> list[robotrules.Finding]:
    odd: list[int] = []
    T.tokenize(text, dialect, odd=odd)
    out: list[robotrules.Finding] = []
    T.recheck(text, dialect, odd, out)
    return out


def _same(text: str, dialect: Dialect) -> None:
    assert _noted(text, dialect) == _careful(text, dialect), text[:200]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_corpus_findings_from_noted_lines_equal_a_careful_pass(dialect: Dialect) -> None:
    paths = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))
    if not paths:
        missing("shared/corpus not present")
    for path in paths:
        text, _ = T.to_text(path.read_bytes())
        _same(text, dialect)


def test_generated_bodies_findings_from_noted_lines_equal_a_careful_pass() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        text, _ = T.to_text(rand_body(rng).encode("utf-8", "surrogateescape"))
        for dialect in DIALECTS:
            _same(text, dialect)


_LINE = st.sampled_from(["User-agent: *", "Disallow: /x", "dissallow: /a", "<html>", "x",
                         ": v", "Allow /a", "Disallow /a b", "#c", "  ", "Crawl_delay: 2",
                         "a\0b: c", "useragent: a", "Sitemap /s", "k:v"])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(_LINE, st.text(max_size=30)), max_size=12),
       dialect=st.sampled_from(DIALECTS))
def test_any_lines_findings_from_noted_lines_equal_a_careful_pass(
        lines: list[str], dialect: Dialect) -> None:
    text, _ = T.to_text(T.to_bytes("\n".join(lines)))  # the Latin-1 text the parser reads
    _same(text, dialect)
