"""robots.txt at dataset scale (``pip install 'robotrules[dataset]'``; Spark: ``[spark]``).

* :mod:`.warc`: web-archive captures of robots.txt (Common Crawl's ``robotstxt`` subset) into
  robots.parquet, one row per capture, with the RFC 9309 outcome of each;
* :mod:`.captures`: the robots.parquet schema and the duplicate rule (one capture per origin);
* :mod:`.kernel`: the batch kernel adding per-agent verdict columns to Arrow record batches;
* :mod:`.engines`: the ``duckdb`` (one machine, default) and ``spark`` engines that run it;
* :mod:`.census`: per crawler and purpose, how many origins block it, and the usage signals
  the files carry, over one or more crawls;
* :mod:`.outcomes`: Common Crawl's robots.txt outcome table per top-k stratum, with RFC 9309's;
* :mod:`.history`: what changed per origin between consecutive crawls;
* :mod:`.cli`: the ``robotrules dataset`` Click group.

Importing this package needs no optional dependency; each function imports what it needs and
raises :class:`MissingExtra` (a :class:`~robotrules.RobotrulesError`) when it is absent.
"""

from __future__ import annotations

from ._deps import DatasetError, MissingExtra
from .captures import choose, robots_schema
from .census import CensusResult, run_census
from .engines import VerdictRun, run_verdicts
from .kernel import RulesCache, evaluate, evaluate_batches
from .warc import IngestStats, read_warcs

__all__ = [
    "CensusResult",
    "DatasetError",
    "IngestStats",
    "MissingExtra",
    "RulesCache",
    "VerdictRun",
    "choose",
    "evaluate",
    "evaluate_batches",
    "read_warcs",
    "robots_schema",
    "run_census",
    "run_verdicts",
]
