"""The agreement section: the corpus answers of every library (from workload (b)'s warm-up
pass) against Google's C++ matcher on the same queries; robotrules[google] must agree 100%."""

from __future__ import annotations

import bench_libs as L
from bench_data import SiteFile
from bench_harness import Results
from bench_libs import Suite
from bench_report import Report
from bench_timing import fmt_int, table


def agreement(suite: Suite, files: list[SiteFile], answers: dict[str, list[bool]],
              rep: Report) -> None:
    google: list[bool] = []
    for f in files:
        google.extend(L.GOOGLE.cold(f.body, f.queries))
    flat = [(f, a, u) for f in files for a, u in f.queries]
    rows = []
    data: Results = {}
    examples: list[str] = []
    google_dialect = {g.name for _, g in suite.builds}
    for name, got in answers.items():
        diff = [i for i, (g, r) in enumerate(zip(google, got, strict=True)) if g != r]
        pct = 100.0 * (len(got) - len(diff)) / max(1, len(got))
        files_off = len({flat[i][0].name for i in diff})
        rows.append([name, f"{pct:.3f}%", fmt_int(len(diff)), fmt_int(files_off)])
        data[name] = {"agree_pct": pct, "disagreements": len(diff), "files": files_off}
        if name in google_dialect:
            for i in diff[:10]:
                f, a, u = flat[i]
                examples.append(f"  {name} {f.name}: agent={a!r} url={u!r} google={google[i]}")
    rep.out(f"## agreement with Google's matcher on the same {len(google):,} queries")
    rep.out()
    rep.out(table(["library", "agree", "disagreements", "files"], rows))
    rep.out()
    rep.out("robotrules[google] must agree 100%. robotrules (rfc9309) differs from Google by "
            "design: percent-normalised paths and /robots.txt always allowed (RFC 9309 2.2.2).")
    if examples:
        rep.out()
        rep.out("robotrules google-dialect disagreements (first 10 per build):")
        rep.out("```")
        for e in examples:
            rep.out(e)
        rep.out("```")
    rep.out()
    rep.data["agreement"] = data
