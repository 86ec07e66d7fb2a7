"""What a file parsed by the native peer keeps (robotrules._native.Doc's body ownership).

Issue 38's reproduction: "A parsed file keeps a reference to the caller's bytes. A crawler that
caches parsed files and drops the bodies keeps the whole input resident ... Keep what the
answers need, not the caller's object". ``parse(body, keep_text=False)`` keeps the agent and
rule values the verdicts read, copied into a block the file owns, and no reference to the
body; its verdicts are the default parse's (and so the pure core's, the reference), and every
answer that reads the text raises ``ValueError`` instead of answering from nothing.
"""

from __future__ import annotations

import gc
import pickle
import random
import sys
import tracemalloc
from pathlib import Path

import pytest

import robotrules
from robotrules import _robots
from robotrules._dialects import SPECS
from tests.conftest import SHARED
from tests.core.gen import QUERY_AGENTS, rand_body, rand_url

_native = pytest.importorskip("robotrules._native")
pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels turned off")

DIALECTS = ("rfc9309", "google")
CORPUS = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))


def _agree(body: bytes, dialect: str, agents: list[str], urls: list[str]) -> None:
    """keep_text=False answers every (agent, URL) as the pure core does (the reference)."""
    lean = robotrules.parse(body, dialect, keep_text=False)
    ref = _robots.reference(body, dialect)
    assert isinstance(lean, _native.Doc)
    for agent in agents:
        for url in urls:
            path = SPECS[dialect].path(url)  # type: ignore[index]
            assert lean.path_key(path, agent) == ref.path_key(path, agent), (agent, url)
            assert lean.is_allowed(url, user_agent=agent) == ref.is_allowed(
                url, user_agent=agent), (dialect, agent, url)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_keep_text_false_answers_as_the_reference_on_the_corpus(dialect: str) -> None:
    """Every 20th corpus file, its own agents and paths built from its rules."""
    for path in CORPUS[::20]:
        body = path.read_bytes()
        ref = _robots.reference(body, dialect)
        own = [a for g in ref.groups[:4] for a in g.tokens if a != "*"]
        agents = ["*", "Googlebot", "GPTBot", *own[:6]]
        urls = ["https://h/", "https://h/robots.txt"] + [
            "https://h" + r.pattern.replace("*", "x").rstrip("$")
            for g in ref.groups[:3] for r in g.rules[:6] if r.pattern.startswith("/")]
        _agree(body, dialect, agents, urls)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_keep_text_false_answers_as_the_reference_on_generated_files(dialect: str) -> None:
    """Bodies made to hit the matchers' quirks (tests/core/gen.py): odd keys, separators,
    line ends, escapes, wildcards, UTF-8 and Latin-1 bytes."""
    rng = random.Random(38)
    for _ in range(150):
        body = rand_body(rng).encode("utf-8", "surrogatepass")
        _agree(body, dialect, rng.sample(QUERY_AGENTS, 4), [rand_url(rng) for _ in range(6)])


def test_keep_text_false_holds_no_reference_to_the_body() -> None:
    """The default keeps the caller's object (its source, pickling); keep_text=False not."""
    body = b"User-agent: *\nDisallow: /private\n" + b"# " + b"x" * 1000 + b"\n"
    before = sys.getrefcount(body)
    kept = robotrules.parse(body)
    assert sys.getrefcount(body) == before + 1
    lean = robotrules.parse(body, keep_text=False)
    assert sys.getrefcount(body) == before + 1
    assert kept.source() is body
    assert not lean.is_allowed("/private/x")
    assert lean.is_allowed("/public")


def test_keep_text_false_keeps_about_the_rule_values() -> None:
    """A file of 2,000 rules and as many comment lines, its body dropped by the caller:
    what stays allocated (tracemalloc sees the kernel's PyMem allocations) is well under the
    body, and the default keeps the whole body."""
    lines = []
    for i in range(2000):
        lines += [f"# section {i}: pages the crawler should leave alone, see the policy",
                  f"Disallow: /s{i}/private/"]
    text = "User-agent: *\n" + "\n".join(lines) + "\n"

    def kept(keep_text: bool) -> tuple[int, int]:
        gc.collect()
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            body = text.encode()  # the caller's only reference (traced)
            size = len(body)
            rules = robotrules.parse(body, keep_text=keep_text)
            del body
            assert not rules.is_allowed("/s7/private/a")
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        del rules
        return held, size

    lean, size = kept(False)
    full, _ = kept(True)
    assert full > size  # the body stays with the default
    assert lean < 0.6 * size  # rule values: 39,780 of 179,903 bytes, plus the matcher


@pytest.mark.parametrize("answer", ["groups", "findings", "explain", "source", "pickle",
                                    "latin1_text", "crawl_delay"])
def test_keep_text_false_refuses_what_reads_the_text(answer: str) -> None:
    """The text is not kept, so what reads it raises ValueError saying why (never an answer
    made from nothing); the verdicts still come."""
    lean = robotrules.parse(b"User-agent: *\nCrawl-delay: 5\nDisallow: /x\n", keep_text=False)
    calls = {
        "groups": lambda: lean.groups,
        "findings": lambda: lean.findings,
        "explain": lambda: lean.explain("/x"),
        "source": lambda: lean.source(),
        "pickle": lambda: pickle.dumps(lean),
        "latin1_text": lambda: lean.latin1_text,
        "crawl_delay": lambda: lean.crawl_delay(user_agent="*"),
    }
    with pytest.raises(ValueError, match="keep_text=False"):
        calls[answer]()
    assert not lean.is_allowed("/x/y")


def test_keep_text_false_on_empty_and_ruleless_files() -> None:
    """No values at all: the block the file owns is empty and every path is allowed
    (RFC 9309 2.2.2: no matching rule allows)."""
    for body in (b"", b"\n\n", b"# only a comment\n", b"Sitemap: https://h/s.xml\n",
                 b"User-agent: a\nUser-agent: b\n"):
        lean = robotrules.parse(body, keep_text=False)
        assert lean.is_allowed("https://h/x", user_agent="a")
        assert lean.size == len(body)
