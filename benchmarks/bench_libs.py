"""The libraries under comparison, each behind the same three calls.

Every adapter receives the raw bytes of a robots.txt, a full URL (``https://<host>/...``) and a
bare agent token. Libraries that only take text decode the bytes themselves with UTF-8
``errors="replace"``, *inside* their timed parse (a crawler receives bytes, so that decoding
is part of their cost). Google's matcher has no parse step: it re-parses the body on every
call, so it only appears in the workloads that include parsing (cold, scaling per call).
fastrobots (Rust; a wheel for CPython 3.12 only) is included when it imports: its ``allowed``
takes a path, not a URL, so its adapter extracts the path, params and query the way Google's
matcher does, inside the timing.
"""

from __future__ import annotations

import fnmatch
import re
import urllib.robotparser
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

import protego
import robots
from jwm.robotstxt import googlebot

try:
    import fastrobots
except ImportError:  # only a CPython 3.12 wheel exists
    fastrobots = None
try:  # nzrsky's C++ fork of Google's parser (package fast-robotstxt, module robotstxt)
    from robotstxt import robots as _nzrsky  # type: ignore[import-untyped]
    _nzrsky_lib: Any = _nzrsky._lib
except ImportError:
    _nzrsky_lib = None

Query = tuple[str, str]  # (agent token, full URL)


@dataclass(frozen=True)
class Lib:
    """One library: how to parse, how to ask, how to run the cold workload."""

    name: str
    version: str
    parse: Callable[[bytes], Any] | None
    ask: Callable[[Any, str, str], bool] | None  # (parsed, agent, url) -> allowed
    cold: Callable[[bytes, Sequence[Query]], list[bool]]
    # empties the library's process-wide caches; the cold workload calls it at the start of
    # every round, so no round profits from what an earlier round left in a cache
    reset: Callable[[], None] | None = None


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:  # pragma: no cover - editable installs
        return "?"


def _decode(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


# -- robotrules ----------------------------------------------------------------------------


def robotrules_libs(module: ModuleType, label: str) -> tuple[Lib, Lib]:
    """The default (rfc9309) and google dialects of one build of robotrules."""
    parse = module.parse

    def parse_rfc(body: bytes) -> Any:
        return parse(body)

    def parse_google(body: bytes) -> Any:
        return parse(body, "google")

    def ask(rules: Any, agent: str, url: str) -> bool:
        return bool(rules.is_allowed(url, user_agent=agent))

    def cold_rfc(body: bytes, queries: Sequence[Query]) -> list[bool]:
        is_allowed = parse(body).is_allowed
        return [is_allowed(url, user_agent=agent) for agent, url in queries]

    def cold_google(body: bytes, queries: Sequence[Query]) -> list[bool]:
        is_allowed = parse(body, "google").is_allowed
        return [is_allowed(url, user_agent=agent) for agent, url in queries]

    version = getattr(module, "__version__", "?")
    reset = module._compile.clear_caches  # the pattern memo and two small key memos
    return (Lib(label, version, parse_rfc, ask, cold_rfc, reset),
            Lib(f"{label}[google]", version, parse_google, ask, cold_google, reset))


LEAN = "[keep_text=False]"


def lean_lib(module: ModuleType, label: str) -> Lib:
    """The default dialect parsed with ``keep_text=False``: the file keeps the agent and rule
    values its verdicts read, not the body (the memory workload and the first query)."""
    parse = module.parse

    def parse_lean(body: bytes) -> Any:
        return parse(body, keep_text=False)

    def ask(rules: Any, agent: str, url: str) -> bool:
        return bool(rules.is_allowed(url, user_agent=agent))

    def cold_lean(body: bytes, queries: Sequence[Query]) -> list[bool]:
        is_allowed = parse(body, keep_text=False).is_allowed
        return [is_allowed(url, user_agent=agent) for agent, url in queries]

    return Lib(label + LEAN, getattr(module, "__version__", "?"), parse_lean, ask, cold_lean,
               module._compile.clear_caches)


# -- protego (Scrapy) --------------------------------------------------------------------


def _protego_parse(body: bytes) -> protego.Protego:
    return protego.Protego.parse(_decode(body))


def _protego_ask(rp: protego.Protego, agent: str, url: str) -> bool:
    return bool(rp.can_fetch(url, agent))


def _protego_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    rp = protego.Protego.parse(_decode(body))
    ask = rp.can_fetch
    return [bool(ask(url, agent)) for agent, url in queries]


# -- urllib.robotparser ------------------------------------------------------------------


def _stdlib_parse(body: bytes) -> urllib.robotparser.RobotFileParser:
    rp = urllib.robotparser.RobotFileParser()
    rp.parse(_decode(body).splitlines())
    return rp


def _stdlib_ask(rp: urllib.robotparser.RobotFileParser, agent: str, url: str) -> bool:
    return rp.can_fetch(agent, url)


def _stdlib_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    rp = _stdlib_parse(body)
    ask = rp.can_fetch
    return [ask(agent, url) for agent, url in queries]


# -- robotspy ----------------------------------------------------------------------------


def _robotspy_parse(body: bytes) -> Any:
    return robots.RobotsParser.from_string(_decode(body))


def _robotspy_ask(rp: Any, agent: str, url: str) -> bool:
    return bool(rp.can_fetch(agent, url))


def _robotspy_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    rp = robots.RobotsParser.from_string(_decode(body))
    ask = rp.can_fetch
    return [bool(ask(agent, url)) for agent, url in queries]


# -- Google's C++ matcher (jwm-robotstxt) -------------------------------------------------


def _google_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    ask = googlebot.RobotsMatcher().OneAgentAllowedByRobots
    return [bool(ask(body, agent.encode(), url.encode())) for agent, url in queries]


def google_answers(cases: Sequence[tuple[bytes, Sequence[Query]]]) -> list[bool]:
    """Google's matcher's verdict on every query of ``cases`` (body, queries), in order: the
    oracle the native drivers' answers are checked against."""
    return [answer for body, queries in cases for answer in _google_cold(body, queries)]


# -- nzrsky's fork of Google's C++ matcher (fast-robotstxt) -------------------------------
# Its Python API (``robotstxt.RobotsMatcher.is_allowed(text, agent, url)``) re-parses the body
# on every call, like Google's, and encodes its three ``str`` arguments each time. The adapter
# calls the C function the package binds with ctypes (``robots_allowed_by_robots``: bytes and
# lengths) directly, one matcher per file: the least a Python caller can pay per call.
# ``binding_overhead`` measures what is left (ctypes' call on an empty body).


def _nzrsky_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    lib = _nzrsky_lib
    ptr = lib.robots_matcher_create()
    try:
        out = []
        for agent, url in queries:
            a = agent.encode()
            u = url.encode()
            out.append(bool(lib.robots_allowed_by_robots(ptr, body, len(body), a, len(a), u,
                                                         len(u))))
        return out
    finally:
        lib.robots_matcher_free(ptr)


def binding_overhead(calls: int = 20000) -> float | None:
    """Seconds per call of fast-robotstxt's ctypes binding on an empty body and a one-byte
    URL (what each of its calls costs before any parsing), or None when not installed."""
    if _nzrsky_lib is None:
        return None
    import time

    lib = _nzrsky_lib
    ptr = lib.robots_matcher_create()
    try:
        t0 = time.perf_counter()
        for _ in range(calls):
            lib.robots_allowed_by_robots(ptr, b"", 0, b"a", 1, b"/", 1)
        return (time.perf_counter() - t0) / calls
    finally:
        lib.robots_matcher_free(ptr)


# -- fastrobots (Rust) ---------------------------------------------------------------------
# ``Robots.allowed(path, user_agent)`` matches its first argument as a path: given a full URL it
# answers True for everything (no rule starts with ``https:``), and ``fastrobots.url_path``
# drops the query string (``/*?q=`` would never match). So the adapter cuts the URL as Google's
# ``GetPathParamsQuery`` does (robots.cc): skip ``scheme://authority``, keep path, params and
# query, drop the fragment, ``/`` when nothing is left.

_AUTHORITY = re.compile(r"(?://)?(?:[^/?;]*://)?[^/?;#]*")


def path_params_query(url: str) -> str:
    """The part of ``url`` a robots.txt rule is matched against, as Google's matcher cuts it."""
    rest = url[_AUTHORITY.match(url).end():]  # type: ignore[union-attr]  # always matches
    if not rest or rest[0] == "#":
        return "/"
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest = rest[:hash_at]
    return rest if rest[0] == "/" else "/" + rest


def _fastrobots_parse(body: bytes) -> Any:
    return fastrobots.Robots.parse(_decode(body))


def _fastrobots_ask(rp: Any, agent: str, url: str) -> bool:
    return bool(rp.allowed(path_params_query(url), agent))


def _fastrobots_cold(body: bytes, queries: Sequence[Query]) -> list[bool]:
    ask = fastrobots.Robots.parse(_decode(body)).allowed
    return [bool(ask(path_params_query(url), agent)) for agent, url in queries]


PROTEGO = Lib("protego", _version("protego"), _protego_parse, _protego_ask, _protego_cold)
STDLIB = Lib("urllib.robotparser", "stdlib", _stdlib_parse, _stdlib_ask, _stdlib_cold)
ROBOTSPY = Lib("robotspy", _version("robotspy"), _robotspy_parse, _robotspy_ask,
               _robotspy_cold, fnmatch._compile_pattern.cache_clear)  # fnmatch's pattern cache
GOOGLE = Lib("google C++ (jwm)", _version("jwm.robotstxt"), None, None, _google_cold)
NZRSKY: Lib | None = None if _nzrsky_lib is None else Lib(
    "nzrsky C++ (fast-robotstxt)", _version("fast-robotstxt"), None, None, _nzrsky_cold)
FASTROBOTS: Lib | None = None if fastrobots is None else Lib(
    "fastrobots", _version("fastrobots"), _fastrobots_parse, _fastrobots_ask, _fastrobots_cold)
FASTROBOTS_NAME = "fastrobots"
FASTROBOTS_MISSING = "fastrobots: not installed (CPython 3.12 wheel only)"
OTHERS: tuple[Lib, ...] = (PROTEGO, *((FASTROBOTS,) if FASTROBOTS is not None else ()),
                           STDLIB, ROBOTSPY, GOOGLE,
                           *((NZRSKY,) if NZRSKY is not None else ()))
BASELINE = PROTEGO.name
# what `import` each library costs (measured in fresh interpreters): library name -> statement
IMPORTS: dict[str, str] = {
    "protego": "import protego",
    "fastrobots": "import fastrobots",
    "urllib.robotparser": "import urllib.robotparser",
    "robotspy": "import robots",
    GOOGLE.name: "from jwm.robotstxt import googlebot",
    "nzrsky C++ (fast-robotstxt)": "from robotstxt import robots",
}


@dataclass(frozen=True)
class Suite:
    """The libraries of one run: each robotrules build (both dialects), then the others."""

    builds: tuple[tuple[Lib, Lib], ...]  # (default rfc9309, google dialect) per build

    @property
    def libs(self) -> tuple[Lib, ...]:
        return (*(lib for pair in self.builds for lib in pair), *OTHERS)

    @property
    def robotrules(self) -> tuple[Lib, ...]:
        """Every robotrules build, both dialects."""
        return tuple(lib for pair in self.builds for lib in pair)

    @property
    def compared_with(self) -> tuple[str, ...]:
        """The libraries every robotrules build is compared with: protego, then fastrobots
        when it is installed."""
        return (BASELINE, *((FASTROBOTS.name,) if FASTROBOTS is not None else ()))

    @property
    def parsing(self) -> tuple[Lib, ...]:
        """The libraries with a separate parse step (everything but Google's matcher)."""
        return tuple(lib for lib in self.libs if lib.parse is not None)


def suite(builds: Sequence[tuple[str, ModuleType]]) -> Suite:
    return Suite(tuple(robotrules_libs(module, label) for label, module in builds))
