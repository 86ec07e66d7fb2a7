"""The benchmark's data sets (benchmarks/bench_data.py, workloads/first.py): the cold
workload's sets of 20 queries a file extend the first-query sets, so the two sections measure
the same files and the first query of each is the one the first-query section asks.

Source: issue 38 ("cold at least 2x fastrobots on every data set the benchmark has": the
cold workload runs on the corpus with its seeded queries, the corpus with queries built from
its rules, and the generated files).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_data  # noqa: E402
from workloads.first import cold_sets, data_sets  # noqa: E402

import robotrules  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "sites"


def test_rule_queries_start_with_the_rule_query_and_come_from_the_rules() -> None:
    body = b"User-agent: *\nDisallow: /private/\nAllow: /private/open$\nDisallow: /*.pdf\n"
    one = bench_data.rule_query("example.com.txt", body, 9309)
    many = bench_data.rule_queries("example.com.txt", body, 20, 9309)
    assert len(many) == 20
    assert many[0] == one
    assert many == bench_data.rule_queries("example.com.txt", body, 20, 9309)  # seeded
    assert all(url.startswith("https://example.com/") for _, url in many)
    # built from the rules: most paths are matched by one (path_from_rule makes some near
    # misses on purpose), where random paths would almost never be
    rules = robotrules.parse(body)
    matched = sum(rules.explain(url, user_agent=agent).rule is not None for agent, url in many)
    assert matched >= 12
    assert bench_data.rule_queries("x.txt", b"User-agent: *\nCrawl-delay: 5\n", 20, 9309) == ()
    assert bench_data.rule_query("x.txt", b"User-agent: *\n", 9309) is None


def test_the_cold_sets_extend_the_first_query_sets() -> None:
    files = bench_data.site_files(CORPUS, 40, 20, 9309)
    first = dict(data_sets(files, 9309, 6))
    cold = cold_sets(files, 9309, 6)
    assert [title for title, _ in cold] == [
        "corpus, its seeded queries", "corpus, queries from its rules",
        "generated files (6, 300 B to 30 KB)"]
    seeded, from_rules, generated = (pairs for _, pairs in cold)
    assert [(b, qs[0]) for b, qs in seeded if qs] == first["corpus, the file's first query"]
    assert [(b, qs[0]) for b, qs in from_rules] == first["corpus, a query from one of its rules"]
    assert [(b, qs[0]) for b, qs in generated] == first["generated files (6, 300 B to 30 KB)"]
    assert all(len(qs) == 20 for _, qs in seeded + from_rules + generated)
