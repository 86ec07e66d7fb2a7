"""The batch kernel and the local engine: every verdict equals the library's own answer.

The oracle is the public API on the same capture: ``robotrules.parse(body).is_allowed(url,
user_agent=A)`` (issue 14, "Agreement"); allow-all / disallow-all rows follow RFC 9309 2.3.1.3
and 2.3.1.4.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import robotrules
from robotrules.dataset import DatasetError, RulesCache, evaluate, run_verdicts
from robotrules.dataset.kernel import USAGE_KEYS, array_of, numpy_of, strings_of

from .conftest import AGENTS, Crawl


def _check_agreement(crawl: Crawl, table: pa.Table) -> int:
    parsed = {o: robotrules.parse(b) for o, b in crawl.bodies.items()}
    checked = 0
    for row in table.to_pylist():
        url, origin = row["url"], row["origin"]
        for agent in AGENTS:
            allowed = row[f"{agent}__allowed"]
            if origin in parsed:
                assert row["robots_outcome"] == "rules"
                expected = parsed[origin].is_allowed(url, user_agent=agent)
                assert allowed is expected, (url, agent, row[f"{agent}__rule"])
                v = parsed[origin].explain(url, user_agent=agent)
                assert row[f"{agent}__line"] == v.line
                assert row[f"{agent}__reason"] == v.reason
                checked += 1
            else:
                assert allowed is None
                assert row[f"{agent}__reason"] in ("no-capture", "invalid-url")
    return checked


def test_local_engine_agrees_with_parse_on_thousands_of_verdicts(
        corpus_crawl: Crawl, tmp_path: Path) -> None:
    out = tmp_path / "verdicts.parquet"
    run = run_verdicts([str(corpus_crawl.robots)], str(corpus_crawl.urls), str(out),
                       list(AGENTS), threads=2, workers=2, usage=False)
    table = pq.read_table(out)
    assert table.num_rows == pq.read_metadata(corpus_crawl.urls).num_rows == run.urls
    assert sorted(table.column("n").to_pylist()) == list(range(table.num_rows))
    assert _check_agreement(corpus_crawl, table) >= 10_000
    # each body parsed once per bucket that holds it: at most once per origin here
    assert run.parses <= len(corpus_crawl.bodies)


def _joined(urls: list[str], origins: list[str | None], outcomes: list[str | None],
            bodies: list[bytes | None]) -> pa.RecordBatch:
    when = pa.array([None] * len(urls), pa.timestamp("us", tz="UTC"))
    return pa.RecordBatch.from_arrays(
        [pa.array(urls), pa.array(origins), pa.array(outcomes), when, pa.array(bodies)],
        names=["url", "origin", "robots_outcome", "robots_fetch_time", "robots_body"])


def test_kernel_outcomes_without_rules() -> None:
    batch = _joined(["https://a.example/x", "https://b.example/x", "https://c.example/x"],
                    ["https://a.example", "https://b.example", "https://c.example"],
                    ["allow-all", "disallow-all", None], [None, None, None])
    out = evaluate(batch, ["GPTBot"]).to_pylist()
    # RFC 9309 2.3.1.3 (unavailable: allow), 2.3.1.4 (unreachable: disallow), no capture: unknown
    assert [(r["GPTBot__allowed"], r["GPTBot__reason"]) for r in out] == [
        (True, "allow-all"), (False, "disallow-all"), (None, "no-capture")]
    assert "robots_body" not in out[0]


def test_kernel_parses_each_body_once_per_cache() -> None:
    # the seed's verdict rule: a file is read once and answers every URL of its origin; the
    # same bytes served by five origins (a CMS default) are the same file, read once
    body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"
    other = b"User-agent: *\nDisallow: /private\n"
    rng = random.Random(1)
    urls = [f"https://o{rng.randint(0, 4)}.example/p{i}" for i in range(500)]
    origins = [u.rsplit("/", 1)[0] for u in urls]
    batch = _joined(urls, list(origins), ["rules"] * 500, [body] * 500)
    cache = RulesCache()
    out = evaluate(batch, ["GPTBot", "Googlebot"], cache=cache)
    evaluate(batch, ["GPTBot"], cache=cache)
    assert cache.parses == 1 < len(set(origins))
    rows = out.to_pylist()
    assert all(r["GPTBot__allowed"] is False and r["GPTBot__line"] == 2 for r in rows)
    assert all(r["GPTBot__rule"] == "Disallow: /" for r in rows)
    assert all(r["Googlebot__allowed"] is True and r["Googlebot__line"] == 5 for r in rows)
    # another body is another file: parsed, and its own answers
    mixed = _joined(["https://p.example/private/x", "https://o1.example/private/x"],
                    ["https://p.example", "https://o1.example"], ["rules"] * 2, [other, body])
    got = evaluate(mixed, ["Googlebot"], cache=cache).to_pylist()
    assert cache.parses == 2
    assert [(r["Googlebot__allowed"], r["Googlebot__rule"]) for r in got] == [
        (False, "Disallow: /private"), (True, "Allow: /")]


def test_kernel_names_a_missing_column() -> None:
    batch = pa.RecordBatch.from_arrays([pa.array(["https://a.example/"])], names=["url"])
    with pytest.raises(DatasetError, match="no column 'origin'"):
        evaluate(batch, ["GPTBot"])


def test_usage_columns() -> None:
    body = b"User-agent: *\nDisallow: /private\n"
    batch = _joined(["https://a.example/x", "https://b.example/x"],
                    ["https://a.example", "https://b.example"], ["rules", "disallow-all"],
                    [body, None])
    rows = evaluate(batch, ["GPTBot"], usage=True).to_pylist()
    rules = robotrules.parse(body)
    u = rules.usage("https://a.example/x", user_agent="GPTBot")
    assert rows[0]["GPTBot__crawl"] is bool(u.crawl)
    for key in USAGE_KEYS[1:]:
        assert rows[0][f"GPTBot__{key}"] == u[key]
    # no rules: only crawl is known, and it is the verdict (RFC 9309 2.3.1.4)
    assert [rows[1][f"GPTBot__{k}"] for k in USAGE_KEYS] == [False, None, None, None, None]


def test_url_inputs_csv_and_jsonl_give_the_same_verdicts(corpus_crawl: Crawl,
                                                         tmp_path: Path) -> None:
    import pyarrow.csv as pcsv

    urls = pq.read_table(corpus_crawl.urls).slice(0, 300)
    csv_path, jsonl = tmp_path / "u.csv", tmp_path / "u.jsonl"
    pcsv.write_csv(urls, csv_path)
    import json
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in urls.to_pylist()))
    results = []
    for src in (csv_path, jsonl):
        out = tmp_path / f"{src.suffix}.parquet"
        run_verdicts([str(corpus_crawl.robots)], str(src), str(out), ["CCBot"], threads=1,
                     usage=False)
        results.append(pq.read_table(out).sort_by("n").select(["url", "CCBot__allowed"]))
    assert results[0].equals(results[1])


def test_usage_columns_follow_the_vocabulary() -> None:
    # the categories come from robotrules.aipref.vocabulary (issue 37): vocab-08 (draft-ietf-
    # aipref-vocab-08) has the "ai-use" category, vocab-07 ignores the label
    from robotrules.aipref.vocabulary import usage_keys
    from robotrules.dataset.kernel import usage_columns
    assert usage_columns("vocab-08") == ("crawl", *usage_keys("vocab-08"))
    assert "ai-use" in usage_columns("vocab-08")
    assert "ai-use" not in USAGE_KEYS
    body = b"User-agent: *\nContent-Usage: ai-use=n, train-ai=y\nAllow: /\n"
    batch = _joined(["https://a.example/x"], ["https://a.example"], ["rules"], [body])
    row = evaluate(batch, ["GPTBot"], usage=True, vocabulary="vocab-08").to_pylist()[0]
    assert (row["GPTBot__ai-use"], row["GPTBot__train-ai"]) == (False, True)
    row = evaluate(batch, ["GPTBot"], usage=True).to_pylist()[0]
    assert "GPTBot__ai-use" not in row
    assert row["GPTBot__train-ai"] is True


def test_buffer_conversions_equal_arrows_own() -> None:
    """``numpy_of``, ``array_of`` and ``strings_of`` give the values, nulls and types Arrow's
    own conversions give (``pa.array``, ``to_pylist``: the oracle), sliced arrays and chunked
    ones included."""
    rng = random.Random(40)
    for n in (0, 1, 7, 8, 9, 70):
        ints = [rng.randrange(-5, 5) for _ in range(n)]
        flags = [rng.random() < 0.5 for _ in range(n)]
        holes = [rng.random() < 0.3 for _ in range(n)]
        for kind in (pa.int8(), pa.int32(), pa.int64()):
            arr = pa.array([None if h else v for v, h in zip(ints, holes, strict=True)], kind)
            for part in (arr, arr.slice(min(n, 3)), pa.chunked_array([arr, arr], kind)):
                want = [-9 if v is None else v for v in part.to_pylist()]
                got = numpy_of(part, -9)
                assert got.tolist() == want
                assert str(got.dtype) == str(kind)
            made = array_of(np.array(ints, np.int32), mask=np.array(holes, np.bool_))
            assert made.equals(pa.array(ints, pa.int32(), mask=np.array(holes, np.bool_)))
        bools = pa.array(flags, pa.bool_())
        for part in (bools, bools.slice(min(n, 3))):
            assert numpy_of(part).tolist() == part.to_pylist()
        assert array_of(np.array(flags, np.bool_)).equals(bools)
        assert array_of(np.array(flags, np.bool_), mask=np.array(holes, np.bool_)).equals(
            pa.array(flags, pa.bool_(), mask=np.array(holes, np.bool_)))
        words = [None if h else "é" * rng.randrange(4) + "x" for h in holes]
        assert strings_of(words).equals(pa.array(words, pa.string()))
    with pytest.raises(ValueError, match="nulls"):
        numpy_of(pa.array([1, None]))


def test_verdicts_run_imports_no_pandas(corpus_crawl: Crawl, tmp_path: Path) -> None:
    """A verdict run on DuckDB (engine and kernel process) converts between Arrow and NumPy
    through buffers: pyarrow's own conversions import pandas on first use (pyarrow's
    pandas-shim), a fixed third of a second per process (the issue's speed figures)."""
    code = ("import sys\nfrom robotrules.dataset import run_verdicts\n"
            "run_verdicts([sys.argv[1]], sys.argv[2], sys.argv[3], ['GPTBot', '*'], threads=1,"
            " workers=1, usage=True)\n"
            "print('pandas' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code, str(corpus_crawl.robots),
                           str(corpus_crawl.urls), str(tmp_path / "v.parquet")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]
    assert pq.read_metadata(tmp_path / "v.parquet").num_rows == pq.read_metadata(
        corpus_crawl.urls).num_rows


def _explained(body: bytes, urls: list[str], agent: str) -> list[tuple[bool, int | None,
                                                                      str | None, str]]:
    """The source: ``explain`` per URL (the core's per-URL answer)."""
    rules = robotrules.parse(body)
    out = []
    for u in urls:
        v = rules.explain(u, user_agent=agent)
        out.append((v.allowed, v.line, None if v.rule is None else str(v.rule), v.reason))
    return out


@pytest.mark.parametrize("kind", [pa.string(), pa.large_string()])
def test_kernel_reads_string_and_large_string_columns_and_slices(kind: pa.DataType) -> None:
    """The URL column is read from its Arrow buffers (int32 offsets for string, int64 for
    large_string), a batch cut from a larger one (offsets not starting at 0) included, the
    origins' rows interleaved; every entry equals ``explain`` (the source)."""
    bodies = {"https://a.example": b"User-agent: *\nDisallow: /x\nAllow: /x/ok\nDisallow:\n",
              "https://b.example": b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\n"
                                   b"Disallow: /caf%C3%A9\n"}
    paths = ["/x", "/x/ok", "/y", "/robots.txt", "/caf\u00e9", "/x?q=1", ""]
    urls = [f"{o}{p}" for p in paths for o in bodies]  # origins interleaved
    origins = [u[:17] for u in urls]
    whole = _joined(["junk"] * 3 + urls, ["https://a.example"] * 3 + origins,
                    ["rules"] * (3 + len(urls)), [bodies[o] for o in ["https://a.example"] * 3
                                                  + origins])
    url_col = whole.column("url").cast(kind)
    batch = pa.RecordBatch.from_arrays([url_col, *whole.columns[1:]],
                                       names=whole.schema.names).slice(3)
    assert batch.column("url").offset == 3
    rows = evaluate(batch, ["GPTBot", "Googlebot"]).to_pylist()
    for agent in ("GPTBot", "Googlebot"):
        want = {o: _explained(b, [u for u in urls if u.startswith(o)], agent)
                for o, b in bodies.items()}
        got: dict[str, list[tuple[bool, int | None, str | None, str]]] = {o: [] for o in bodies}
        for r in rows:
            got[r["origin"]].append((r[f"{agent}__allowed"], r[f"{agent}__line"],
                                     r[f"{agent}__rule"], r[f"{agent}__reason"]))
        assert got == want


def test_kernel_a_url_that_is_not_utf8_is_an_invalid_url() -> None:
    """A string column whose bytes are not UTF-8 (a hostile or broken Parquet file; Arrow does
    not check on reading): that row is an ``invalid-url`` (the reason docs/datasets.md gives
    a URL that cannot be read), the rows beside it are answered (``explain``, the source);
    one bad line never costs the good ones (the developers' guide)."""
    body = b"User-agent: *\nDisallow: /private\n"
    good = ["https://a.example/private", "https://a.example/public"]
    raw = [good[0].encode(), b"https://a.example/\xff\xfe", good[1].encode()]
    offsets = np.cumsum([0] + [len(r) for r in raw]).astype(np.int32)
    urls = pa.Array.from_buffers(pa.string(), 3, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(b"".join(raw))])
    base = _joined(["x"] * 3, ["https://a.example"] * 3, ["rules"] * 3, [body] * 3)
    batch = pa.RecordBatch.from_arrays([urls, *base.columns[1:]], names=base.schema.names)
    for usage in (False, True):
        out = evaluate(batch, ["GPTBot"], usage=usage)
        allowed = out.column("GPTBot__allowed").to_pylist()
        reason = out.column("GPTBot__reason").to_pylist()
        want = _explained(body, good, "GPTBot")
        assert (allowed[0], reason[0]) == (want[0][0], want[0][3])
        assert (allowed[2], reason[2]) == (want[1][0], want[1][3])
        assert (allowed[1], reason[1]) == (None, "invalid-url")
        assert out.column("GPTBot__rule")[1].as_py() is None
        if usage:
            assert out.column("GPTBot__crawl")[1].as_py() is None


def test_url_origins_reads_a_url_the_prefix_pattern_does_not_take_whole() -> None:
    """url_origins: a URL the prefix pattern does not take (white space or a backslash in its
    authority) goes to origin_of whole (the one home of RFC 9309 2.3's origin: the source),
    which reads a tab as urlsplit does; before, such a URL came out with no origin."""
    from robotrules._origin import origin_or_none
    from robotrules.dataset.kernel import url_origins

    urls = ["https://a.example\t/x", "https://a.example x/y", "https://a.example\\evil/x",
            "https://b.example/ok", None]
    assert url_origins(pa.array(urls)).to_pylist() == [
        None if u is None else origin_or_none(u) for u in urls]
    assert url_origins(pa.array(urls))[0].as_py() == "https://a.example"
