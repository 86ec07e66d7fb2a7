"""The inputs of the datasets tools: URL file kinds and robots.parquet checks.

WARC inputs (:func:`warc_inputs`) come as files, quoted globs, directories or list files (one
path a line: ``@FILE``, ``*.paths``, ``*.paths.gz`` as Common Crawl publishes them, ``*.txt``),
so a whole crawl's tens of thousands of files go in as one argument.

URL lists come as Parquet, CSV (with a header line) or JSON Lines, chosen by the file name
(``.parquet``/``.pq``, ``.csv``, ``.jsonl``/``.ndjson``/``.json``; a ``.gz`` suffix is allowed
for CSV and JSON Lines); DuckDB reads them (:func:`.engines.url_relation`). robots.parquet files
are checked against the columns the tools need before any work starts.
"""

from __future__ import annotations

import glob
import gzip
import os
from collections.abc import Sequence

from ._deps import DatasetError, require

__all__ = ["ROBOTS_NEEDED", "WARC_SUFFIXES", "check_output", "check_robots", "url_format",
           "warc_inputs"]

#: Columns of robots.parquet the verdict and census stages read.
ROBOTS_NEEDED = ("origin", "robots_url", "fetch_time", "outcome", "body", "warc_offset")


def url_format(path: str) -> str:
    """``parquet``, ``csv`` or ``json`` from the file name."""
    name = path.lower().removesuffix(".gz")
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "json"
    raise DatasetError(f"{path}: unknown URL file type (use .parquet, .csv or .jsonl)")


def _fail(path: str, exc: BaseException) -> DatasetError:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DatasetError(f"cannot read {path}: {text}")


def check_robots(paths: Sequence[str]) -> None:
    """Each path is a readable robots.parquet with the needed columns."""
    pq = require("pyarrow.parquet")
    pa_ = require("pyarrow")
    if not paths:
        raise DatasetError("no robots.parquet given")
    for path in paths:
        if not os.path.isfile(path):
            raise DatasetError(f"no such robots file: {path}")
        try:
            names = pq.ParquetFile(path).schema_arrow.names
        except (OSError, pa_.ArrowException) as exc:
            if "magic bytes" in str(exc):
                raise DatasetError(f"{path} is not a Parquet file: --robots takes the "
                                   "robots.parquet 'robotrules dataset robots' writes (a "
                                   "robots.txt goes to 'robotrules check --robots')") from exc
            raise _fail(path, exc) from exc
        missing = [c for c in ROBOTS_NEEDED if c not in names]
        if missing:
            raise DatasetError(f"{path} is not a robots.parquet: no column {missing[0]!r}")


#: Names of WARC files a directory is searched for (plain or gzip, ``.arc`` as archived).
WARC_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz")
_LIST_SUFFIXES = (".paths", ".paths.gz", ".txt", ".lst")


def _is_list(arg: str) -> bool:
    return arg.startswith("@") or arg.lower().endswith(_LIST_SUFFIXES)


def _list_lines(path: str) -> list[str]:
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            return [s for line in f if (s := line.strip()) and not s.startswith("#")]
    except (OSError, EOFError) as exc:
        raise _fail(path, exc) from exc


def warc_inputs(args: Sequence[str], prefix: str | None = None) -> list[str]:
    """The WARC files named by ``args``, in order, each once.

    Each argument is a WARC file, a glob (quoted for the shell; ``**`` goes down folders), a
    directory (its WARC files, :data:`WARC_SUFFIXES`, all levels down, sorted) or a list file
    (``@FILE``, or a name ending ``.paths``, ``.paths.gz``, ``.txt`` or ``.lst``): one path a
    line, ``#`` comments, gzip allowed; a relative line is taken under ``prefix`` (the folder
    Common Crawl's ``robotstxt.paths.gz`` was mirrored into; default the current folder).
    A URL prefix is refused: download the files first. Raises :class:`DatasetError` for a path
    or pattern that names nothing, before any file is read.
    """
    if prefix is not None and "://" in prefix:
        raise DatasetError(f"--prefix {prefix}: a local folder is needed (download the files "
                           "first, e.g. with the paths file and wget -i or aws s3 cp)")
    if prefix is not None and not os.path.isdir(prefix):
        raise DatasetError(f"--prefix {prefix}: no such folder")
    out: dict[str, None] = {}
    for arg in args:
        if os.path.isfile(arg) and not _is_list(arg):
            out[arg] = None
        elif os.path.isdir(arg):
            found = sorted(p for p in glob.glob(os.path.join(glob.escape(arg), "**", "*"),
                                                recursive=True)
                           if p.lower().endswith(WARC_SUFFIXES) and os.path.isfile(p))
            if not found:
                raise DatasetError(f"no WARC files ({', '.join(WARC_SUFFIXES)}) in {arg}")
            out.update(dict.fromkeys(found))
        elif _is_list(arg) and os.path.isfile(arg.removeprefix("@")):
            listed = arg.removeprefix("@")
            lines = _list_lines(listed)
            if not lines:
                raise DatasetError(f"{listed}: the list names no file")
            for n, line in enumerate(lines, start=1):
                if "://" in line:
                    raise DatasetError(f"{listed}: line {n}: {line} is a URL; download the "
                                       "files and give --prefix the folder")
                path = line if os.path.isabs(line) else os.path.join(prefix or ".", line)
                if not os.path.isfile(path):
                    raise DatasetError(f"{listed}: line {n}: no such WARC file: {path}"
                                       + ("" if prefix else " (give --prefix the folder the "
                                          "list's paths are under)"))
                out[path] = None
        elif glob.has_magic(arg):
            found = sorted(p for p in glob.glob(arg, recursive=True) if os.path.isfile(p))
            if not found:
                raise DatasetError(f"no WARC file matches {arg}")
            out.update(dict.fromkeys(found))
        elif _is_list(arg):
            raise DatasetError(f"no such list file: {arg.removeprefix('@')}")
        else:
            raise DatasetError(f"no such WARC file: {arg}")
    return list(out)


def check_output(path: str, *, directory: bool = False) -> None:
    """An output name must say Parquet: ``.parquet``/``.pq``, or no suffix for Spark's
    directory; a ``.csv`` or ``.json`` name would hold Parquet bytes under a lying name."""
    name = os.path.basename(path.rstrip(os.sep)).lower()
    if name.endswith((".parquet", ".pq")) or (directory and "." not in name):
        return
    raise DatasetError(f"{path}: the verdicts are written as Parquet; name the output "
                       "*.parquet (convert with DuckDB: COPY (FROM 'v.parquet') TO 'v.csv')")
