"""The inputs of the datasets tools (``_io``): a whole crawl's WARC files as one argument (a
quoted glob, a directory, a list file, Common Crawl's ``robotstxt.paths.gz`` under a prefix),
output names, robots.parquet checks.

The reproduction is issue 40's: a real crawl's list of about 90,000 WARC files overflows the
shell's argument limit, and the ingest must be one run so redirects resolve across files.
Common Crawl's paths files list one path a line relative to the bucket root
(``crawl-data/CC-MAIN-.../robotstxt/....warc.gz``), gzipped.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from robotrules.dataset import DatasetError
from robotrules.dataset._io import check_output, check_robots, warc_inputs
from robotrules.dataset.cli import dataset

from ._warcs import Capture, write_warc

SEGMENT = "crawl-data/CC-MAIN-2025-38/segments/1757047527000.00/robotstxt"


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, list[str]]:
    """A folder laid out as Common Crawl's bucket, 3,000 WARC files of which the first is a
    redirect to a capture in the last one."""
    root = tmp_path / "mirror"
    (root / SEGMENT).mkdir(parents=True)
    names = [f"{SEGMENT}/CC-MAIN-20250915-{n:05d}.warc.gz" for n in range(3000)]
    first = write_warc(root / names[0], [Capture(
        "http://a.example/robots.txt", 301, headers={"Location": "https://a.example/robots.txt"})])
    last = write_warc(root / names[-1], [Capture(
        "https://a.example/robots.txt", 200, b"User-agent: *\nDisallow: /x\n")])
    empty = write_warc(tmp_path / "empty.warc.gz", [])
    for name in names[1:-1]:
        os.link(empty, root / name)
    assert first.is_file()
    assert last.is_file()
    return root, names


def test_a_paths_file_under_a_prefix_is_one_run(mirror: tuple[Path, list[str]],
                                                tmp_path: Path) -> None:
    root, names = mirror
    paths = tmp_path / "robotstxt.paths.gz"
    paths.write_bytes(gzip.compress(("\n".join(names) + "\n").encode()))
    assert warc_inputs([str(paths)], str(root)) == [str(root / n) for n in names]
    out = tmp_path / "robots.parquet"
    result = CliRunner().invoke(dataset, ["robots", str(paths), "--prefix", str(root),
                                          "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "of 3,000 WARC files" in result.stderr
    assert result.stdout.split() == [str(out), str(tmp_path / "robots.captures.parquet")]
    import pyarrow.parquet as pq
    row = pq.read_table(out).to_pylist()[0]
    # the redirect in the first file resolves to the capture in the last (RFC 9309 2.3.1.2)
    assert (row["robots_url"], row["final_url"], row["outcome"]) == (
        "http://a.example/robots.txt", "https://a.example/robots.txt", "rules")


def test_glob_directory_and_list_files(mirror: tuple[Path, list[str]], tmp_path: Path) -> None:
    root, names = mirror
    every = [str(root / n) for n in names]
    assert warc_inputs([str(root / "**" / "*.warc.gz")]) == every  # quoted, ** goes down
    assert warc_inputs([str(root)]) == every  # a directory: its WARC files, all levels
    listed = tmp_path / "mine.txt"
    listed.write_text("# my files\n" + "\n".join(every[:2]) + "\n\n")
    assert warc_inputs([str(listed)]) == every[:2]
    assert warc_inputs([f"@{listed}", every[0], every[2]]) == every[:3]  # each once, in order


def test_inputs_that_name_nothing(mirror: tuple[Path, list[str]], tmp_path: Path) -> None:
    _root, names = mirror
    paths = tmp_path / "robotstxt.paths"
    paths.write_text(names[0] + "\n")
    with pytest.raises(DatasetError, match=r"line 1: no such WARC file.*give --prefix"):
        warc_inputs([str(paths)])
    with pytest.raises(DatasetError, match="a local folder is needed"):
        warc_inputs([str(paths)], "https://data.commoncrawl.org/")
    url_list = tmp_path / "urls.txt"
    url_list.write_text("https://data.commoncrawl.org/" + names[0] + "\n")
    with pytest.raises(DatasetError, match="is a URL; download the files"):
        warc_inputs([str(url_list)])
    with pytest.raises(DatasetError, match="no WARC file matches"):
        warc_inputs([str(tmp_path / "*.nothing")])
    (tmp_path / "bare").mkdir()
    with pytest.raises(DatasetError, match="no WARC files"):
        warc_inputs([str(tmp_path / "bare")])
    with pytest.raises(DatasetError, match="no such list file"):
        warc_inputs(["@missing.txt"])
    result = CliRunner().invoke(dataset, ["robots", str(tmp_path / "bare"), "-o",
                                          str(tmp_path / "r.parquet")])
    assert result.exit_code == 2
    assert "no WARC files" in result.stderr
    assert not (tmp_path / "r.parquet").exists()


def test_output_names_say_parquet(tmp_path: Path) -> None:
    # issue 39: "dataset verdicts -o v.csv writes Parquet into the .csv file"
    check_output("v.parquet")
    check_output("out/spark-dir", directory=True)
    for name in ("v.csv", "v.json", "v"):
        with pytest.raises(DatasetError, match="name the output"):
            check_output(name)


def test_a_robots_txt_given_as_robots_parquet(tmp_path: Path) -> None:
    # issue 39: pyarrow's "Parquet magic bytes not found" for a robots.txt given as --robots
    txt = tmp_path / "robots.txt"
    txt.write_text("User-agent: *\nDisallow: /\n")
    with pytest.raises(DatasetError, match="is not a Parquet file: --robots takes"):
        check_robots([str(txt)])
