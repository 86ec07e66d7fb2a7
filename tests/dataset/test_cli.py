"""The ``dataset`` Click group, through Click's runner and as ``python -m``: the three commands
on a small crawl, and errors as one line on stderr with exit status 2 (project standard)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("click", reason="the dataset commands need click (robotrules[dataset])")

from click.testing import CliRunner

from robotrules.dataset.cli import dataset
from tests._proc import default_sigint

from ._warcs import Capture, write_warc

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def warc(tmp_path: Path) -> Path:
    return write_warc(tmp_path / "c.warc.gz", [
        Capture("https://a.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n"),
        Capture("https://b.example/robots.txt", 404),
    ])


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(dataset, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_three_commands(tmp_path: Path, warc: Path) -> None:
    robots = tmp_path / "robots.parquet"
    code, _, err = _run("robots", str(warc), "-o", str(robots))
    assert code == 0, err
    assert "2 robots.txt captures" in err
    urls = tmp_path / "urls.jsonl"
    urls.write_text('{"link": "https://a.example/x"}\n{"link": "https://b.example/x"}\n')
    out = tmp_path / "v.parquet"
    code, _, err = _run("verdicts", "--robots", str(robots), "--urls", str(urls),
                        "--agent", "GPTBot", "--agent", "Googlebot", "-o", str(out),
                        "--column", "link", "--threads", "1", "--no-usage")
    assert code == 0, err
    rows = {r["link"]: r for r in pq.read_table(out).to_pylist()}
    assert rows["https://a.example/x"]["GPTBot__allowed"] is False  # RFC 9309 2.2.2
    assert rows["https://a.example/x"]["Googlebot__allowed"] is True
    assert rows["https://b.example/x"]["GPTBot__reason"] == "allow-all"  # 2.3.1.3
    code, stdout, err = _run("census", "--robots", str(robots), "--purpose", "training",
                             "-o", str(tmp_path / "census"), "--workers", "1")
    assert code == 0, err
    assert f"{tmp_path.name}: 2 origins" in err  # robots.parquet is named by its folder
    assert str(tmp_path / "census" / "agents.parquet") in stdout


@pytest.mark.parametrize(("args", "message"), [
    (["robots", "absent.warc.gz", "-o", "o.parquet"], "no such WARC file: absent.warc.gz"),
    (["verdicts", "--robots", "absent.parquet", "--urls", "u.csv", "--agent", "A", "-o", "o"],
     "no such robots file"),
    (["census", "--robots", "absent.parquet", "-o", "c"], "no such robots file"),
])
def test_errors_are_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, _stdout, err = _run(*args)
    assert code == 2
    assert err.count("\n") == 1
    assert message in err
    assert "Traceback" not in err


def test_missing_column_and_bad_file(tmp_path: Path, warc: Path) -> None:
    robots = tmp_path / "robots.parquet"
    assert _run("robots", str(warc), "-o", str(robots))[0] == 0
    urls = tmp_path / "u.parquet"
    pq.write_table(pa.table({"address": ["https://a.example/"]}), urls)
    code, _, err = _run("verdicts", "--robots", str(robots), "--urls", str(urls),
                        "--agent", "GPTBot", "-o", str(tmp_path / "o.parquet"))
    assert code == 2
    assert "has no column 'url' (columns: address)" in err
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    code, _, err = _run("verdicts", "--robots", str(bad), "--urls", str(urls),
                        "--agent", "GPTBot", "-o", str(tmp_path / "o.parquet"))
    assert code == 2
    assert err.startswith(f"robotrules dataset: error: {bad} is not a Parquet file")
    assert err.count("\n") == 1
    code, _, err = _run("census", "--robots", str(urls), "-o", str(tmp_path / "c"))
    assert code == 2
    assert "is not a robots.parquet" in err


def test_python_dash_m(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    ok = subprocess.run([sys.executable, "-m", "robotrules.dataset.cli", "--help"],
                        capture_output=True, text=True, env=env, timeout=60)
    assert ok.returncode == 0
    assert "verdicts" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "robotrules.dataset.cli", "robots",
                          str(tmp_path / "x.warc"), "-o", str(tmp_path / "o.parquet")],
                         capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0
    assert "no such WARC file" in bad.stderr


def test_group_without_subcommand_prints_multi_line_help() -> None:
    code, stdout, _ = _run()
    assert code == 0
    assert stdout.count("\n") > 10
    for name in ("robots", "verdicts", "census", "outcomes", "history"):
        assert f"\n  {name} " in stdout


def test_only_unreadable_warcs_exit_2_and_write_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(b"\x1f\x8b\x08garbage, not a WARC file at all" * 10)
    out = tmp_path / "robots.parquet"
    code, _, err = _run("robots", str(bad), "-o", str(out))
    assert code == 2
    assert "no WARC record could be read" in err
    assert err.count("\n") == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [bad]
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    code, _, err = _run("robots", str(empty), "-o", str(out))
    assert code == 2
    assert f"no WARC record could be read: {empty} is empty" in err
    assert not out.exists()


def test_skipped_summary_is_readable(tmp_path: Path) -> None:
    warc = write_warc(tmp_path / "s.warc.gz", [
        Capture("https://a.example/robots.txt", 200, b"User-agent: *\nDisallow: /\n"),
        Capture("ftp://files.example/robots.txt", 200, b""),
    ])
    code, _, err = _run("robots", str(warc), "-o", str(tmp_path / "r.parquet"))
    assert code == 0, err
    assert "skipped 1 record: 1 target URI not http(s)" in err
    assert "{" not in err


def test_progress_for_every_input_kind(tmp_path: Path, warc: Path) -> None:
    from robotrules.dataset import read_warcs, run_verdicts
    robots = tmp_path / "robots.parquet"
    read_warcs([warc], robots)
    lines = [f"https://a.example/{i}" for i in range(5000)]
    inputs = {"u.csv": "url\n" + "\n".join(lines) + "\n",
              "u.jsonl": "".join(f'{{"url": "{u}"}}\n' for u in lines)}
    for name, text in inputs.items():
        (tmp_path / name).write_text(text)
    pq.write_table(pa.table({"url": lines}), tmp_path / "u.parquet")
    for name in ("u.csv", "u.jsonl", "u.parquet"):
        calls: list[tuple[str, int, int | None]] = []
        run_verdicts([str(robots)], str(tmp_path / name), str(tmp_path / f"{name}.parquet"),
                     ["GPTBot"], progress=lambda *a: calls.append(a))  # noqa: B023
        phases = {c[0] for c in calls}
        assert phases == {"reading URLs", "verdicts"}, name
        assert max(c[1] for c in calls if c[0] == "verdicts") == 5000
        assert calls[-1] == ("verdicts", 5000, 5000)


def test_unreadable_url_rows_are_skipped_and_counted(tmp_path: Path, warc: Path) -> None:
    # issue 39: one invalid byte in a URL CSV, or a lone surrogate in JSON Lines, aborted the
    # run; every other reader here skips and counts a bad row (project rule: one bad line
    # never costs the good ones)
    robots = tmp_path / "robots.parquet"
    assert _run("robots", str(warc), "-o", str(robots))[0] == 0
    csv_file = tmp_path / "u.csv"
    csv_file.write_bytes(b"id,url\n1,https://a.example/x\n2,https://a.example/\xff\xfe\n"
                         b"3,https://b.example/\n")
    jsonl = tmp_path / "u.jsonl"
    jsonl.write_bytes(b'{"url": "https://a.example/x"}\n{"url": "https://a.example/\\ud800"}\n'
                      b'not json\n{"url": "https://b.example/"}\n')
    for urls, bad in ((csv_file, 1), (jsonl, 2)):
        out = tmp_path / f"{urls.suffix[1:]}.parquet"
        code, stdout, err = _run("verdicts", "--robots", str(robots), "--urls", str(urls),
                                 "--agent", "GPTBot", "-o", str(out))
        assert code == 0, err
        assert f"skipped {bad} unreadable URL rows" in err
        assert stdout.split() == [str(out)]  # the file written goes to stdout
        assert sorted(pq.read_table(out).column("url").to_pylist()) == [
            "https://a.example/x", "https://b.example/"]


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p.write_text(""), "is empty: a CSV needs a header line"),
    (lambda p: p.mkdir(), "is a directory, not a URL file"),
])
def test_url_file_errors_say_what_is_wrong(tmp_path: Path, warc: Path, make: object,
                                           message: str) -> None:
    robots = tmp_path / "robots.parquet"
    assert _run("robots", str(warc), "-o", str(robots))[0] == 0
    urls = tmp_path / "urls.csv"
    make(urls)  # type: ignore[operator]
    code, _, err = _run("verdicts", "--robots", str(robots), "--urls", str(urls),
                        "--agent", "GPTBot", "-o", str(tmp_path / "o.parquet"))
    assert code == 2
    assert message in err
    assert err.count("\n") == 1


def test_verdicts_output_named_csv_is_refused(tmp_path: Path, warc: Path) -> None:
    robots = tmp_path / "robots.parquet"
    assert _run("robots", str(warc), "-o", str(robots))[0] == 0
    urls = tmp_path / "u.csv"
    urls.write_text("url\nhttps://a.example/\n")
    code, _, err = _run("verdicts", "--robots", str(robots), "--urls", str(urls),
                        "--agent", "GPTBot", "-o", str(tmp_path / "v.csv"))
    assert code == 2
    assert "name the output *.parquet" in err
    assert not (tmp_path / "v.csv").exists()


def test_corrupt_robots_parquet_names_the_file(tmp_path: Path, warc: Path) -> None:
    # issue 40: a corrupt Parquet said "don't know what type:" with no file name
    good = tmp_path / "good.parquet"
    assert _run("robots", str(warc), "-o", str(good))[0] == 0
    data = bytearray(good.read_bytes())
    data[8:400] = b"\x00" * 392  # the column chunks, footer intact
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(bytes(data))
    urls = tmp_path / "u.csv"
    urls.write_text("url\nhttps://a.example/\n")
    code, _, err = _run("verdicts", "--robots", str(good), "--robots", str(broken),
                        "--urls", str(urls), "--agent", "GPTBot", "-o", str(tmp_path / "o.parquet"))
    assert code == 2, err
    assert f"cannot read {broken} (a robots.parquet)" in err


def test_a_warc_cut_mid_record_is_reported(tmp_path: Path) -> None:
    # issue 40: a WARC cut mid-record was read silently with exit 0. Now: a warning naming
    # the file and record, exit status 1, the cut capture an error row (unreachable, RFC 9309
    # 2.3.1.4, as the live fetcher reads a transfer cut mid-body), the rest read
    from ._warcs import capture_records
    body = b"User-agent: *\nDisallow: /x\n" * 40
    raw = b"".join(capture_records(Capture("https://a.example/robots.txt", 200, body))
                   + capture_records(Capture("https://b.example/robots.txt", 200, body)))
    cut = tmp_path / "cut.warc"
    cut.write_bytes(raw[:-100])
    out = tmp_path / "r.parquet"
    code, _stdout, err = _run("robots", str(cut), "-o", str(out))
    assert code == 1
    assert f"warning: broken file (read up to the break): {cut}: ends inside the record" in err
    rows = {r["origin"]: r for r in pq.read_table(out).to_pylist()}
    assert rows["https://a.example"]["outcome"] == "rules"
    assert (rows["https://b.example"]["outcome"], rows["https://b.example"]["error"]) == (
        "disallow-all", "the WARC file ends inside the record")


def test_census_headline_names_only_blocked_crawlers(tmp_path: Path) -> None:
    # issue 39: "most blocked: ... 0.0 %" and counts without separators
    warc = write_warc(tmp_path / "c.warc.gz", [Capture("https://a.example/robots.txt", 404)])
    robots = tmp_path / "robots.parquet"
    assert _run("robots", str(warc), "-o", str(robots))[0] == 0
    code, _, err = _run("census", "--robots", f"X={robots}", "--purpose", "training",
                        "-o", str(tmp_path / "c"), "--workers", "1")
    assert code == 0, err
    assert "X: 1 origins; most blocked: none blocked;" in err
    assert "0.0 %" not in err


def test_progress_rows_are_one_per_phase_across_threads() -> None:
    # issue 40: with 2 DuckDB threads a duplicate "reading URLs" progress row stayed stuck
    import threading

    from robotrules.dataset.cli import _Progress

    class Bar:
        def __init__(self) -> None:
            self.added: list[str] = []

        def add_task(self, name: str, total: int | None) -> int:
            self.added.append(name)
            return len(self.added)

        def update(self, *args: object, **kw: object) -> None:
            threading.Event().wait(0.001)

    p = _Progress()
    p.bar = Bar()
    threads = [threading.Thread(target=lambda: [p("reading URLs", i, None) for i in range(50)])
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert p.bar.added == ["reading URLs"]


def _start(args: list[str], tmp: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "robotrules.dataset", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp,
                            preexec_fn=default_sigint)


N_FILES = 8000  # census's work on them outlasts its start-up on an idle machine too


@pytest.mark.slow  # builds and ingests 8,000 captures, then spawns workers
def test_sigterm_to_census_leaves_nothing_behind(tmp_path: Path) -> None:
    # issue 40: SIGTERM to census left both pool workers, the resource tracker and the temp
    # dir alive. N_FILES distinct files (each assessed for every registry crawler) keep the
    # two workers busy long enough to be stopped mid-run
    psutil = pytest.importorskip("psutil")
    from robotrules.dataset import read_warcs
    body = b"User-agent: GPTBot\nDisallow: /\nUser-agent: *\nDisallow: /private/\n"
    warc = write_warc(tmp_path / "big.warc.gz", [
        Capture(f"https://s{n}.example/robots.txt", 200, body + f"# {n}\n".encode())
        for n in range(N_FILES)])
    robots = tmp_path / "robots.parquet"
    read_warcs([warc], robots)
    scratch = tmp_path / "scratch"
    proc = _start(["census", "--robots", str(robots), "--workers", "2", "--scratch-dir",
                   str(scratch), "-o", str(tmp_path / "census")], tmp_path)
    me = psutil.Process(proc.pid)
    children: list[Any] = []
    for _ in range(600):
        children = me.children(recursive=True)
        if len(children) >= 3 or proc.poll() is not None:  # two workers + resource tracker
            break
        time.sleep(0.05)
    assert proc.poll() is None, "census ended before it could be stopped"
    time.sleep(0.5)
    children = me.children(recursive=True)
    proc.send_signal(signal.SIGTERM)
    # the batches under way are not waited for: a loaded machine took two minutes to finish
    # them, past a service manager's stop timeout (systemd's default: 90 s, then SIGKILL,
    # which would leave the temp dir behind)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    _, alive = psutil.wait_procs(children, timeout=30)
    assert alive == []
    assert list(scratch.iterdir()) == []  # the census's temp dir is gone
    assert not (tmp_path / "census" / "agents.parquet").exists()


@pytest.mark.slow  # 3 million URLs, so that the run is still going when interrupted
def test_ctrl_c_in_verdicts_exits_130(tmp_path: Path, warc: Path) -> None:
    # issue 40: Ctrl-C in verdicts was "UDF: KeyboardInterrupt" / "internal error", exit 2;
    # the project's CLIs exit 130 on Ctrl-C
    from robotrules.dataset import read_warcs
    robots = tmp_path / "robots.parquet"
    read_warcs([warc], robots)
    urls = tmp_path / "u.parquet"
    n = 3_000_000
    pq.write_table(pa.table({"url": pa.array([f"https://a.example/{i % 977}/{i}"
                                              for i in range(n)])}), urls)
    out = tmp_path / "v.parquet"
    proc = _start(["verdicts", "--robots", str(robots), "--urls", str(urls), "--agent",
                   "GPTBot", "--threads", "2", "-o", str(out)], tmp_path)
    # interrupted once it is writing (its output exists as a .partial file), not after a
    # fixed time: an idle machine decides the URLs in a few seconds
    for _ in range(1200):
        if proc.poll() is not None or any(p.name.endswith(".partial")
                                          for p in tmp_path.iterdir()):
            break
        time.sleep(0.01)
    assert proc.poll() is None, "verdicts ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert "internal error" not in err
    assert "Traceback" not in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
