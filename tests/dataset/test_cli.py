"""The ``dataset`` Click group, through Click's runner and as ``python -m``: the three commands
on a small crawl, and errors as one line on stderr with exit status 2 (project standard)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("click", reason="the dataset commands need click (robotrules[dataset])")

from click.testing import CliRunner

from robotrules.dataset.cli import dataset

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
    assert err.startswith("robotrules dataset: error: cannot read")
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
        run_verdicts([str(robots)], str(tmp_path / name), str(tmp_path / f"{name}.out"),
                     ["GPTBot"], progress=lambda *a: calls.append(a))  # noqa: B023
        phases = {c[0] for c in calls}
        assert phases == {"reading URLs", "verdicts"}, name
        assert max(c[1] for c in calls if c[0] == "verdicts") == 5000
        assert calls[-1] == ("verdicts", 5000, 5000)
