"""The native kernels (robotrules._native, Cython) against the pure-Python core, their reference.

Issue 15: "the pure core is the reference, the native kernels (tokenizer, group index, matcher
build, match) are tested against it and against Google on the same generated inputs". Google's
side is tests/core/test_differential.py (it goes through ``robotrules.parse``, native when
built); here every native answer is compared with :func:`robotrules._robots.reference`, the
same file parsed on the pure core, in the same process:

- the directive stream and the noted lines (``_native.tokenize`` == ``_tokenize.tokenize``),
  on the corpus, generated bodies and any text;
- the deciding rule's key (robotrules._match's keys: priority, verdict, line) and the
  verdict, for every agent and many paths, on the corpus, generated bodies, and groups big
  enough for every matcher shape (linear, prefix-indexed, literal-indexed, built at once
  or after repeated scans);
- the C reading of patterns (``pattern_form``) == ``_compile.native_pattern``;
- RFC 9309 path normalisation of escapes in C == ``_url.rfc_path``.

Without a built extension these tests are skipped (CI builds it and checks ``NATIVE``).
"""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import _compile, _robots, _url
from robotrules import _tokenize as T
from robotrules._dialects import SPECS
from robotrules._pure import PurePeer
from tests.conftest import SHARED
from tests.core.gen import PATH_ATOMS, QUERY_AGENTS, rand_body, rand_url

_native = pytest.importorskip("robotrules._native")
pytestmark = pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels turned off")

DIALECTS = ("rfc9309", "google")
CORPUS = sorted(Path(SHARED, "corpus", "sites").glob("*.txt"))
LITERALS = ["ba", "ab", "a", "b", "?", "=", "&", ".", "_", "-", "id", "sort", "page", "ref",
            "utm_", "s=", ".php", ".pdf", "?q=", "&p=", "x7k2", "%41", "%2f", "é", "$"]


def _same(body: bytes, dialect: str, agents: list[str], urls: list[str]) -> None:
    fast = robotrules.parse(body, dialect)
    slow = _robots.reference(body, dialect)
    assert isinstance(fast, _native.Doc)  # the selector chose the native peer
    assert isinstance(slow, PurePeer)
    for agent in agents:
        for url in urls:
            path = SPECS[dialect].path(url)  # type: ignore[index]
            want = slow.path_key(path, agent)
            assert fast.path_key(path, agent) == want, (dialect, agent, url)
            assert fast.is_allowed(url, user_agent=agent) == slow.is_allowed(
                url, user_agent=agent), (dialect, agent, url)


def _paths_for(patterns: list[str], rng: random.Random) -> list[str]:
    out = ["/", "/robots.txt", "", "http://x.com", "http://x.com#a/b", "x.com/a/b", "//x.com/q?a",
           "https://x.com;p?q#f", "HTTP://X.COM/a", "/%41%2f%7e", "/a%", "/a%4", "/ü/\ud800"]
    for p in patterns:
        base = p.rstrip("$").replace("*", rng.choice(["", "ab", "/x/", "ba?q=1"]))
        out += [base, base + "x", base[:-1], "/" + base, "https://h.com" + (
            base if base.startswith("/") else "/" + base)]
    return out


# -- tokenizer ------------------------------------------------------------------------------


def _tokens_agree(text: str) -> None:
    for dialect in ("rfc9309", "google", "1994"):
        odd: list[int] = []
        pure = T.tokenize(text, dialect, odd=odd)  # type: ignore[arg-type]
        nat, nodd = _native.tokenize(text, dialect)
        assert list(nat) == list(pure), dialect
        assert list(nodd) == odd, dialect


@pytest.mark.skipif(not CORPUS, reason="shared/corpus not present")
def test_tokenizer_matches_pure_on_the_corpus() -> None:
    for f in CORPUS:
        _tokens_agree(T.to_text(f.read_bytes())[0])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(0, 2**32))
def test_tokenizer_matches_pure_on_generated_bodies(seed: int) -> None:
    body = rand_body(random.Random(seed)).encode("utf-8", "surrogatepass")
    _tokens_agree(T.to_text(body)[0])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_tokenizer_matches_pure_on_any_bytes(body: bytes) -> None:
    _tokens_agree(T.to_text(body)[0])


def test_tokenizer_long_lines_nul_and_line_ends() -> None:
    """robots.cc: 16,663 bytes of a line kept, NUL ends a line, CR/LF/CRLF end lines."""
    for text in ["Disallow: /" + "a" * 20000 + "\nAllow: /b", "Disallow: /a\0b\nAllow: /c",
                 "User-agent: *\r\nDisallow: /a\rAllow: /b\n\rDisallow: /c\r\n"]:
        _tokens_agree(T.to_text(text.encode())[0])
        _same(text.encode(), "google", ["*", "x"], ["/a", "/b", "/c", "/" + "a" * 17000])


def test_tokenizer_block_boundaries() -> None:
    """robotrules._tokenize.tokenize (the pure reference) against the kernel's line scan,
    which reads thirty-two bytes a step, then sixteen: every line length from 1 to 72 with
    the line end, the ':' and the '#' at each place around a step's edge, for LF, CR and CRLF
    line ends and a last line with none (robots.cc: CR, LF and CRLF end lines; '#' starts a
    comment)."""
    for end in ("\n", "\r", "\r\n", ""):
        for size in range(1, 73):
            for colon in (0, 1, size // 2, size - 2, size - 1, 7, 8, 15, 16, 17, 23, 24, 31,
                          32, 33):
                for hash_at in (-1, 0, colon - 1, colon + 1, 15, 16, 23, 24, 32, size - 1):
                    line = ["a"] * size
                    if 0 <= colon < size:
                        line[colon] = ":"
                    if 0 <= hash_at < size:
                        line[hash_at] = "#"
                    text = "Disallow" + "".join(line)
                    body = "x" * (size % 17) + end + text + end + text
                    _tokens_agree(T.to_text(body.encode())[0])


def test_tokenizer_long_runs_of_white_space() -> None:
    """robotrules._tokenize.tokenize (the pure reference) against the kernel's line scan:
    runs of every length around sixteen (the scan's step) before and after keys and values,
    of each byte the tokenizer strips (robotrules._tables.whitespace in a line: tab,
    vertical tab, form feed, space), and lines of white space only (HTML served as
    robots.txt is indented so)."""
    for ws in (" ", "\t", "\x0b", "\x0c", " \t"):
        for k in (0, 1, 15, 16, 17, 31, 32, 33, 100):
            run = (ws * k)[:k]
            for line in (f"{run}Disallow{run}:{run}/a b{run}", f"{run}User-agent: x{run}",
                         f"{run}key value{run}", run, f"{run}# note{run}",
                         f"Disallow:{run}", f"{run}:{run}"):
                body = "User-agent: *\n" + line + "\nAllow: /q\n" + line
                _tokens_agree(T.to_text(body.encode())[0])


def test_directives_past_the_stack_scan() -> None:
    """A file the build scans into a stack array (its size says at most 256 directives)
    that holds more (short lines): the directives move to the heap and none is lost (the
    verdicts and the directive count are the pure core's)."""
    for lines in (250, 256, 257, 300, 600):
        body = ("User-agent: *\n" + "".join(f"Disallow:/{i:x}\n" for i in range(lines - 1))
                ).encode()
        rules = robotrules.parse(body)
        assert isinstance(rules, _native.Doc)
        want = T.tokenize(T.to_text(body)[0], "rfc9309")
        assert rules.directive_count == len(want) // 3
        _same(body, "rfc9309", ["*", "x"], ["/0", "/ff", f"/{lines - 2:x}", "/zz", "/"])


@pytest.mark.parametrize("n", [14, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66, 129])
def test_wildcard_search_around_its_cut(n: int) -> None:
    """RFC 9309 2.2.3 ('*' matches any sequence of characters) in the kernel's search of a
    literal after a '*', done inline on paths of up to 64 bytes and by libc's memmem above:
    paths of n bytes with the literal at the start, the middle, the very end, nearly there
    (all its bytes but the last) and repeated, against the pure peer."""
    lits = ["q", "zz", "abc", "x" * 8, "ab" * 9]
    body = ("User-agent: *\nDisallow: /\n" + "".join(
        f"Allow: /*{lit}\nAllow: /*{lit}$\nAllow: /p*{lit}*e\n" for lit in lits)).encode()
    paths = []
    for lit in lits:
        fill = "y" * max(0, n - len(lit) - 1)
        paths += ["/" + lit + fill, "/" + fill + lit, "/" + fill[: len(fill) // 2] + lit + fill[
            len(fill) // 2:], "/" + fill + lit[:-1], "/" + (lit[:-1] * n)[: n - 1],
            "/p" + lit * (n // len(lit)) + "e", "/p" + fill + lit + "e"]
    for dialect in DIALECTS:
        _same(body, dialect, ["*"], paths)


# -- queries ---------------------------------------------------------------------------------


@pytest.mark.skipif(not CORPUS, reason="shared/corpus not present")
def test_corpus_keys_match_pure() -> None:
    rng = random.Random(15)
    for f in CORPUS[::3]:
        body = f.read_bytes()
        slow = _robots.reference(body, "google")
        patterns = [r.pattern for g in slow.groups for r in g.rules][:30]
        tokens = [t for g in slow.groups for t in g.tokens][:5]
        for dialect in DIALECTS:
            _same(body, dialect, ["*", "Googlebot", "GPTBot", "", *tokens],
                  _paths_for(patterns, rng))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(0, 2**32))
def test_generated_bodies_match_pure(seed: int) -> None:
    rng = random.Random(seed)
    body = rand_body(rng).encode("utf-8", "surrogatepass")
    urls = [rand_url(rng) for _ in range(12)]
    for dialect in DIALECTS:
        _same(body, dialect, QUERY_AGENTS[:6], urls)


def _big_body(rng: random.Random, n: int, leading_star: float) -> tuple[bytes, list[str]]:
    """One group of ``n`` rules: plain prefixes, wildcard rules under shared prefixes and
    rules that could match anywhere (``/*x``, ``*x``), built from shared short literals."""
    lines = [f"User-agent: {rng.choice(['*', 'FooBot'])}"]
    patterns: list[str] = []
    for _ in range(n):
        r = rng.random()
        if r < leading_star:
            lits = "*".join(rng.choice(LITERALS) for _ in range(rng.randint(1, 3)))
            p = rng.choice(["/*", "*", "/"]) + lits + rng.choice(["", "", "$", "*", "x9"])
        elif r < leading_star + 0.2:
            p = "/" + rng.choice(["ipb", "shop", "a"]) + "/*" + rng.choice(LITERALS) + \
                rng.choice(["", "$"])
        else:
            p = "/" + "".join(rng.choice(PATH_ATOMS[:12]) for _ in range(rng.randint(0, 4)))
        patterns.append(p)
        lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {p}")
    return ("\n".join(lines) + "\n").encode("utf-8"), patterns


@pytest.mark.parametrize(("n", "star"), [(10, 0.3), (40, 0.3), (120, 0.6), (700, 0.5),
                                         (3000, 0.9)])
def test_every_matcher_shape_matches_pure(n: int, star: float) -> None:
    """Linear (<= 16 rules), prefix-indexed, literal-indexed after repeated scans (> 48
    wildcard rules) and at once (>= 512, or a path of 256 bytes or more)."""
    rng = random.Random(n)
    body, patterns = _big_body(rng, n, star)
    urls = _paths_for(rng.sample(patterns, min(40, len(patterns))), rng)
    urls += ["/" + "ab" * 200 + "x9", "/shop/" + "ba?q=1&p=" * 40, "/ipb/" + "sortpage" * 50]
    for dialect in DIALECTS:
        # asked twice over: the second pass meets the indexes the first pass caused
        _same(body, dialect, ["*", "FooBot", "Other"], urls + urls[::-1])


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(0, 2**32), st.integers(20, 400))
def test_generated_big_groups_match_pure(seed: int, n: int) -> None:
    rng = random.Random(seed)
    body, patterns = _big_body(rng, n, rng.random())
    urls = _paths_for(rng.sample(patterns, min(12, len(patterns))), rng) * 3
    _same(body, rng.choice(DIALECTS), ["*", "FooBot"], urls)


def _shared_prefix_rules(rng: random.Random, n: int) -> list[str]:
    """``n`` plain prefixes that share long stems (the kernel files them eight bytes at a
    time, past the first sixteen too), each other's prefixes, and copies of one another."""
    stems = ["/" + "s" * rng.choice([0, 6, 7, 8, 9, 14, 15, 16, 17, 23, 24, 25, 40, 100])
             + rng.choice(["", "/x-", "/%E0%B8", "/a/b/c/"]) for _ in range(3)]
    out: list[str] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1 and out:
            out.append(rng.choice(out))  # the same prefix again
        elif r < 0.2 and out:
            base = rng.choice(out)
            out.append(base[:rng.randint(1, len(base))])  # a prefix of another
        else:
            out.append(rng.choice(stems) + "".join(
                rng.choice("ab-/%") for _ in range(rng.randint(0, 12))))
    return out


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.integers(0, 2**32), st.integers(17, 700))
def test_rules_sharing_long_prefixes_match_pure(seed: int, n: int) -> None:
    """The prefix index orders its rules by their bytes (cmp_prefix: robotrules._match's
    IndexedMatcher sorts them so): prefixes that share 0 to 100 bytes, copies and prefixes of
    one another, in every order; the keys and verdicts are the pure core's."""
    rng = random.Random(seed)
    patterns = _shared_prefix_rules(rng, n)
    body = ("User-agent: *\n" + "".join(
        f"{rng.choice(['Allow', 'Disallow'])}: {p}\n" for p in patterns)).encode()
    urls = _paths_for(rng.sample(patterns, min(25, len(patterns))), rng)
    _same(body, rng.choice(DIALECTS), ["*"], urls)


@pytest.mark.parametrize("n", [30, 200, 3000])
def test_a_chain_of_prefixes_matches_pure(n: int) -> None:
    """"/a", "/aa", "/aaa", ...: each prefix of the next, so filing them by their bytes
    splits off one at each level; past FILE_LEVELS levels the rest are merged in n log n
    comparisons. The longest matching rule decides (RFC 9309 2.2.2), as in the pure core."""
    lines = [f"{'Allow' if i % 3 == 0 else 'Disallow'}: /{'a' * i}" for i in range(1, n)]
    lines += [f"Disallow: /{'a' * i}b" for i in range(1, n, 7)]
    body = ("User-agent: *\n" + "\n".join(lines) + "\n").encode()
    urls = ["/", "/b", "/a", "/ab"] + [f"/{'a' * i}{tail}" for i in (1, 2, 24, 25, 26, n // 2,
                                                                   n - 1, n + 5)
                                       for tail in ("", "b", "c")]
    for dialect in DIALECTS:
        _same(body, dialect, ["*"], urls)


def test_many_copies_of_one_rule_match_pure() -> None:
    """Hundreds of rules with the same prefix (and the same in the other verdict): RFC 9309
    2.2.2, the allow rule wins a tie; the longest rule decides when one is longer."""
    body = ("User-agent: *\n" + "Disallow: /same/path/that/is/long\n" * 300
            + "Allow: /same/path/that/is/long\n" * 3 + "Disallow: /same/path/that/is/longer\n"
            * 40 + "Disallow: /other\n" * 20).encode()
    for dialect in DIALECTS:
        _same(body, dialect, ["*"], ["/same/path/that/is/long", "/same/path/that/is/longer",
                                     "/same/path/that/is/lon", "/other/x", "/"])


def test_files_naming_no_agent_select_the_global_groups() -> None:
    """A file whose user-agent lines are all '*' (most files): every agent gets the global
    groups (RFC 9309 2.2.1: the '*' group when no group names it), whatever the string;
    a file with no group at all allows everything."""
    agents = ["Googlebot", "googlebot", "*", "", "FooBot/1.0", "Mozilla/5.0 (x; FooBot/2)",
              "ü-bot", "a" * 300] + [f"Bot{k}" for k in range(12)]
    for body in (b"User-agent: *\nDisallow: /p\n\nUser-agent: *\nAllow: /p/q\n",
                 b"User-agent: *\nUser-agent: *\nDisallow: /\n", b"Disallow: /x\n", b"",
                 b"User-agent: *\n"):
        for dialect in DIALECTS:
            _same(body, dialect, agents, ["/", "/p", "/p/q", "/x", "/y"])


def test_first_queries_from_many_threads_agree() -> None:
    """Matchers are compiled on a selection's first query: threads racing to it get the
    answers a single thread gets (the build is published once)."""
    rng = random.Random(7)
    body, patterns = _big_body(rng, 400, 0.5)
    urls = _paths_for(patterns[:30], rng)
    want = {(a, u): _robots.reference(body).is_allowed(u, user_agent=a)
            for a in ("*", "FooBot") for u in urls}
    for _ in range(5):
        rules = robotrules.parse(body)
        errors: list[tuple[str, str]] = []

        def ask(rules: robotrules.RobotsTxt = rules, errors: list[tuple[str, str]] = errors
                ) -> None:
            for (a, u), v in want.items():
                if rules.is_allowed(u, user_agent=a) != v:
                    errors.append((a, u))

        threads = [threading.Thread(target=ask) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors


def _groups_read_in_python(n: int) -> tuple[list[str], bytes, list[str]]:
    """``n`` agents, each with a group of its own whose first rules hold Google's companion
    rule (robots.cc HandleAllow: ``Allow: /x/index.html`` also allows ``/x/``; the kernel
    leaves such rules to the pure reading, Python code inside a compile) and a space and
    UTF-8 bytes (RFC 9309 2.2.2 percent-encodes them), and URLs each group decides."""
    agents = [f"bot{i}" for i in range(n)]
    lines = []
    for i, agent in enumerate(agents):
        lines += [f"User-agent: {agent}", f"Allow: /a{i}/index.html", f"Disallow: /a{i}/",
                  f"Disallow: /b{i} b/\u00e9t\u00e9", f"Allow: /b{i} b/\u00e9t\u00e9/ok",
                  f"Disallow: /*x{i}$", f"Disallow: /p{i}/", ""]
    urls = [f"/a{i}/{tail}" for i in range(n) for tail in ("", "index.html", "no")]
    urls += [f"/b{i}%20b/%C3%A9t%C3%A9{tail}" for i in range(n) for tail in ("", "/ok", "/no")]
    urls += [f"/q/x{i}" for i in range(n)] + [f"/p{i}/z" for i in range(n)]
    return agents, "\n".join(lines).encode(), urls


def test_last_compiles_raced_by_threads_agree() -> None:
    """What compiling needs is freed once every selection is compiled, never while another
    thread's compile is under way: each group holds a rule the pure reading makes (Google's
    companion rule: a Python call inside the compile lets another thread run), threads ask
    every agent in their own order with a tiny switch interval, and every answer is the
    reference's (RFC 9309 2.2.2)."""
    agents, body, urls = _groups_read_in_python(6)
    ref = _robots.reference(body)
    want = {(a, u): ref.is_allowed(u, user_agent=a) for a in agents for u in urls}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for round_ in range(20):
            rules = robotrules.parse(body)
            errors: list[tuple[str, str]] = []

            def ask(order: list[str], rules: robotrules.RobotsTxt = rules,
                    errors: list[tuple[str, str]] = errors) -> None:
                for a in order:
                    for u in urls:
                        if rules.is_allowed(u, user_agent=a) != want[a, u]:
                            errors.append((a, u))

            orders = [agents[k:] + agents[:k] for k in range(4)]
            threads = [threading.Thread(target=ask, args=(o,)) for o in orders]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors, (round_, errors[:3])
    finally:
        sys.setswitchinterval(interval)


def test_compile_entered_from_the_pure_reading_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interleaving the thread race above finds by chance, made on purpose: while one
    agent's compile waits on the pure reading of a rule (Python code), the same file compiles
    another agent's rules, and each compile still places and finds its own rules' entries.
    Every answer is the reference's (RFC 9309 2.2.2: the most specific match of the agent's
    group decides)."""
    agents, body, urls = _groups_read_in_python(4)
    ref = _robots.reference(body)
    for first in range(len(agents)):
        rules = robotrules.parse(body)
        pure = _native._native_pattern
        entered: list[str] = []

        def reading(raw: str, dialect: str, allow: bool, rules: robotrules.RobotsTxt = rules,
                    entered: list[str] = entered, pure: object = pure
                    ) -> tuple[object, object]:
            for agent in agents:  # each other agent, once, from inside the first compile
                if agent not in entered:
                    entered.append(agent)
                    rules.is_allowed("/", user_agent=agent)
            return pure(raw, dialect, allow)  # type: ignore[operator, no-any-return]

        monkeypatch.setattr(_native, "_native_pattern", reading)
        entered.append(agents[first])
        got = {(a, u): rules.is_allowed(u, user_agent=a) for a in agents for u in urls}
        monkeypatch.setattr(_native, "_native_pattern", pure)
        assert sorted(entered) == agents  # the nested compiles did run
        assert got == {(a, u): ref.is_allowed(u, user_agent=a) for a in agents for u in urls}


def test_agents_full_headers_and_memo() -> None:
    """One token rule (robotrules._token.query_key) whatever the agent string: the same
    string object, an equal one, a full header; more agents than the per-file memo holds."""
    body = b"User-agent: bingbot\nDisallow: /b\n\nUser-agent: *\nDisallow: /s\n"
    rules = robotrules.parse(body)
    header = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
    for _ in range(3):
        assert not rules.is_allowed("/b", user_agent=header)
        assert not rules.is_allowed("/b", user_agent="".join(["bing", "bot"]))
        for k in range(10):
            assert not rules.is_allowed("/s", user_agent=f"Bot{k}")
            assert rules.is_allowed("/b", user_agent=f"Bot{k}")


def test_is_allowed_arguments_on_the_fast_entry() -> None:
    """is_allowed(url, *, user_agent="*") (the peer surface, robotrules._peer.Peer): the
    usual call is answered without Cython's argument parsing; every other call is that
    parsing's, with its errors. A keyword named by a string built at run time (not the
    interned one a call site holds), str subclasses, and wrong calls."""
    rules = robotrules.parse(b"User-agent: FooBot\nDisallow: /f\n\nUser-agent: *\nDisallow: /s\n")
    entry = type(rules).__mro__[1].__dict__["is_allowed"]
    assert type(entry).__name__ == "method_descriptor"
    assert "user_agent" in (entry.__doc__ or "")

    class S(str):
        pass

    name = "".join(["user_", "agent"])
    assert not rules.is_allowed("/f", user_agent="FooBot")
    assert not rules.is_allowed("/f", **{name: "FooBot"})
    assert not rules.is_allowed(S("/f"), user_agent=S("FooBot"))
    assert rules.is_allowed("/s", user_agent=S("FooBot"))
    assert not rules.is_allowed("/s")  # the default agent, '*'
    assert not rules.is_allowed(S("/s"))
    ask = rules.is_allowed
    for call in (lambda: ask(), lambda: ask("/s", "FooBot"), lambda: ask(b"/s"),
                 lambda: ask("/s", user_agent=None), lambda: ask("/s", agent="FooBot"),
                 lambda: ask("/s", user_agent="x", other=1)):
        with pytest.raises(TypeError):
            call()
    assert not ask(url="/s")  # the URL by its name: Cython's parsing takes it


# -- the C readings of patterns and paths -----------------------------------------------------

# ASCII the dialects keep, escape or read specially, and bytes above 127 that make UTF-8
# sequences of two, three and four bytes (\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80), start
# or end one wrongly (\xc0, \xed\xa0, \xf4\x90, a lone \x80) or are Latin-1 text (é)
_PATTERN_CHARS = ("/ab%4A2f*$?=&~.-_:Zé \x00#;+!'()[]@,|^`{}\"<>"
                  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xed\xa0\xf4\x90")


def _pattern_form_agrees(data: bytes, dialect: str, allow: bool) -> None:
    """The C reading of a rule value equals the pure one (robotrules._compile.native_pattern,
    the reading of RFC 9309 2.2.2 and robots.cc MaybeEscapePattern), and is the one taken:
    no byte of a native dialect's value is left to the pure reading, only Google's
    companion rule (an allow rule holding /index.htm)."""
    got = _native.pattern_form(data, dialect, allow)
    if _compile.may_have_companion(data.decode("latin-1"), allow):
        assert got is None
        return
    assert got is not None
    assert got == _compile.native_pattern(data.decode("latin-1"), dialect, allow)[0]


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=_PATTERN_CHARS, min_size=1, max_size=12), st.sampled_from(DIALECTS),
       st.booleans())
def test_pattern_form_matches_pure(raw: str, dialect: str, allow: bool) -> None:
    _pattern_form_agrees(raw.encode("latin-1"), dialect, allow)  # every character is Latin-1


@settings(max_examples=1000, deadline=None)
@given(st.binary(min_size=1, max_size=24).filter(lambda b: 0 not in b and 10 not in b
                                                   and 13 not in b and 35 not in b),
       st.sampled_from(DIALECTS), st.booleans())
def test_pattern_form_of_any_value_matches_pure(data: bytes, dialect: str, allow: bool) -> None:
    """Any bytes a rule value can hold (no NUL, line end or '#': the tokenizer ends the
    value there)."""
    _pattern_form_agrees(data, dialect, allow)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_utf8_or_latin1_values_in_c(dialect: str) -> None:
    """RFC 9309 2.2.2 (robotrules._url.pattern_text): a value that is UTF-8 is escaped by its
    own octets; one that is not (an overlong form, a surrogate, past U+10FFFF, cut short, a
    lone continuation byte) is read as Latin-1. Google escapes every octet as it is."""
    for value in (b"/caf\xc3\xa9", b"/\xe2\x82\xac/", b"/\xf0\x9f\x98\x80$", b"/\xc0\x80",
                  b"/\xed\xa0\x80", b"/\xf4\x90\x80\x80", b"/\xe2\x82", b"/\x80x", b"/\xe9t\xe9",
                  b"/\xf0\x9f\x98", b"/\xc3\xa9\xe9", b"/a b\xc3\xa9*{x}$"):
        _pattern_form_agrees(value, dialect, False)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="/ab%4A2f7E?=&~.-_:*$ é#", max_size=16))
def test_rfc9309_escapes_in_c_match_rfc_path(path: str) -> None:
    """RFC 9309 2.2.2 normalisation: a path rule and a URL meet in the same form."""
    url = "https://example.com/" + path
    norm = _url.rfc_path(url)
    body = f"User-agent: *\nDisallow: {norm}$\n".encode()
    fast = robotrules.parse(body)
    slow = _robots.reference(body)
    assert fast.is_allowed(url) == slow.is_allowed(url)
    assert fast.path_key(norm, "*") == slow.path_key(norm, "*")


def test_agent_keys_and_paths_are_found_in_c(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast paths are the ones taken: a bare agent's key (robotrules._token.query_key: no
    '/', its own token) and an RFC 9309 path that needs escapes (2.2.2: ``/a b`` is
    ``/a%20b``, ``%7E`` is ``~``) are made in C; the pure functions are asked only for a full
    User-Agent header and for a URL holding a lone surrogate, and then answer as before."""
    asked: list[str] = []

    def spy(name: str, real: object) -> object:
        def call(arg: str) -> object:
            asked.append(name)
            return real(arg)  # type: ignore[operator]
        return call

    monkeypatch.setattr(_native, "_query_key", spy("query_key", _native._query_key))
    monkeypatch.setattr(_native, "_rfc_path", spy("rfc_path", _native._rfc_path))
    rules = robotrules.parse(b"User-agent: FooBot\nDisallow: /a%20b\nDisallow: /~x\n")
    assert not rules.is_allowed("https://example.com/a b", user_agent="FOOBOT")
    assert not rules.is_allowed("/%7Ex\u00e9", user_agent="foobot")
    assert rules.is_allowed("/a%20c", user_agent="Other Bot")
    assert asked == []
    assert not rules.is_allowed("/a b", user_agent="FooBot/2.1 (+https://foo.example)")
    assert asked == ["query_key"]
    assert rules.is_allowed("/a\udc80", user_agent="foobot")
    assert asked == ["query_key", "rfc_path"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_one_special_byte_anywhere_in_16_byte_blocks(dialect: str) -> None:
    """The kernel finds a rule that is no plain prefix, and a path that needs RFC 9309
    normalisation, sixteen bytes at a time (SSSE3 where there, the last block overlapping):
    a wildcard, an end anchor, an escape, a space or a byte above 127 at any place of values
    around those lengths reads as the pure peer reads it (RFC 9309 2.2.2, 2.2.3)."""
    specials = ["*", "$", "%41", "%2f", " ", "\u00e9", "\x7f", '"', "{"]
    for size in (7, 8, 15, 16, 17, 31, 32, 33, 48):
        for at in sorted({0, 1, size // 2, size - 1, size}):
            for c in specials:
                value = "/" + "a" * at + c + "b" * (size - at)
                body = f"User-agent: *\nDisallow: /a\nAllow: {value}\n".encode()
                fast = robotrules.parse(body, dialect)
                slow = _robots.reference(body, dialect)
                for path in (value, value.replace(c, "x"), value + "z", "/" + "a" * size):
                    assert fast.is_allowed(path) == slow.is_allowed(path), (dialect, value, path)
                    assert fast.path_key(path, "*") == slow.path_key(path, "*"), (value, path)
                    for url in ("https://example.com" + path, "http://h" + path + "#" + c,
                                "https://example.com" + path[:at + 1] + "#" + path[at + 1:]):
                        assert fast.url_key_path(url, "*") == slow.url_key_path(url, "*"), url


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["user", "-", "_", " ", "agent", "dis", "allow", "Allow",
                                 "sitemap", "crawl", "delay", "x", "\u00e9", "color", "li",
                                 "DISALLOW", "noindex", "host"]), min_size=1, max_size=5
                ).map("".join))
def test_field_names_the_kernel_settles_read_as_pure(key: str) -> None:
    """robotrules._directives.classify_key (Google's prefixes and typos read leniently): the
    kernel settles a name that is none of key_forms() without asking, and reads every other
    as the pure tokenizer does."""
    _compile.clear_caches()  # the kernel's memo of field names: each key read afresh
    _tokens_agree(f"{key}: /a\n{key.upper()}: /b\n{key} /c\n")


def test_escape_table_is_read_off_rfc_normalize() -> None:
    table = _url.decoded_escape_bytes()
    assert table == bytes(_url.rfc_normalize(f"%{c:02x}") == chr(c) for c in range(256))


def test_pure_build_is_a_switch_away() -> None:
    """reference() parses on the pure core whatever the build; both give one answer."""
    body = b"User-agent: *\nDisallow: /x\nAllow: /x/y\n"
    assert isinstance(robotrules.parse(body), _native.Doc)
    assert isinstance(_robots.reference(body), PurePeer)
    assert isinstance(robotrules.parse(body, "1994"), PurePeer)  # 1994: the pure peer
    for url in ("/x", "/x/y", "/z"):
        assert robotrules.parse(body).is_allowed(url) == _robots.reference(body).is_allowed(url)


def test_pickle_and_copy_give_the_same_answers() -> None:
    """A parsed file crosses processes (multiprocessing, Spark) and copies: parsed again."""
    import copy
    import pickle

    body = b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /x\r\nAllow: /x/y\r\n"
    for rules in (robotrules.parse(body), _robots.reference(body), robotrules.parse(body, "1994"),
                  robotrules.parse(body, "google")):
        for other in (pickle.loads(pickle.dumps(rules)), copy.copy(rules), copy.deepcopy(rules)):
            assert other.dialect == rules.dialect
            assert other.size == rules.size
            assert type(other) is type(rules)  # the same peer reads the copy
            for url in ("/x", "/x/y", "/z"):
                assert other.is_allowed(url) == rules.is_allowed(url)
            assert other.explain("/x").line == rules.explain("/x").line


def test_many_tokens_in_chained_groups_match_pure() -> None:
    """Groups that each name two tokens, chained (t_i in groups i-1 and i): thousands of
    distinct merged selections (RFC 9309 2.2.1: the groups that name a token are merged),
    found by a hash of their group lists, not a pass over all of them."""
    n = 3000
    lines = []
    for i in range(n):
        lines += [f"User-agent: t{i}x", f"User-agent: t{i + 1}x", f"Disallow: /d{i}/"]
    body = ("\n".join(lines) + "\n").encode()
    _same(body, "rfc9309", [f"t{i}x" for i in (0, 1, 2, 1500, n - 1, n, n + 1)] + ["*"],
          ["/d0/a", "/d1/a", "/d1499/", "/d1500/x", f"/d{n - 1}/", "/other"])


def test_a_parsed_file_is_one_small_object() -> None:
    """What every parsed file costs before its arrays: the native Doc with the facade's one
    slot (robotrules._robots._Kept) fits 240 bytes, 256 with the GC header, one size class of
    Python's allocator (docs/architecture.md: what a parsed file keeps, issue 20's memory
    figure). The dialect, read from the dialect code, is the name given."""
    for dialect in DIALECTS:
        rules = robotrules.parse(b"User-agent: *\nDisallow: /x\n", dialect)
        assert type(rules).__basicsize__ <= 240
        assert rules.dialect == dialect
