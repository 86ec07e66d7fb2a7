"""Same input, same answer, at every door (issue 11).

A robots.txt body, a URL and a user agent (a bare token or a full User-Agent header) go
through every way robotrules can be asked: the library, ``check --robots FILE``, ``check URL``
against a real server on 127.0.0.1, ``bulk``, the web tester's ``/api/check``, the
``urllib.robotparser`` drop-in and the Scrapy adapter. Every door must give the verdict and
the deciding line the library gives. Source of the expectation: the library itself, whose
answers are checked against RFC 9309 and Google's parser elsewhere (tests/core).

Documented policy differences, named here so that no door differs silently:
- ``compat.RobotFileParser`` treats 401/403 as "disallow all" by default (the stdlib's rule,
  docs/compat.md): not exercised here, the body always comes with 200;
- ``compat.RobotFileParser.parse`` takes text lines, as the stdlib does: bodies here are text;
- the Scrapy adapter answers a bool (its interface has no line);
- an empty agent is no input at the web tester and in ``bulk`` (blank entries are dropped),
  so the agents here are never empty.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import random
import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import Dialect
from robotrules.cli import main as cli_main
from robotrules.compat import RobotFileParser
from tests.core.gen import QUERY_AGENTS, rand_body, rand_path

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning")

DIALECTS: tuple[Dialect, ...] = ("rfc9309", "google", "1994")
HEADERS = [
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; "
    "+https://openai.com/gptbot)",
    "MJ12bot/1.4.8 (http://mj12bot.com/)",
    "FooBot/2.1 (+https://example.org/bot)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
]


class _Body:
    """One local origin serving the body of the current example."""

    def __init__(self, body: bytes) -> None:
        served = body

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/robots.txt":
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(served)))
                self.end_headers()
                self.wfile.write(served)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def web() -> Iterator[TestClient]:
    with TestClient(create_app(), base_url="http://127.0.0.1") as client:
        yield client


def _run(args: list[str]) -> str:
    out = io.StringIO()
    with (contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()),
          contextlib.suppress(SystemExit)):
        cli_main(args)
    return out.getvalue()


def _cli_rows(args: list[str]) -> list[dict[str, Any]]:
    return [json.loads(x) for x in _run(args).splitlines() if x.startswith("{")]


def _answers(body: bytes, path: str, agent: str, dialect: Dialect, tmp: Path,
             web: TestClient) -> dict[str, tuple[bool, int | None]]:
    answers: dict[str, tuple[bool, int | None]] = {}
    lib = robotrules.parse(body, dialect).explain(path, user_agent=agent)
    answers["library"] = (lib.allowed, lib.line)

    robots = tmp / "robots.txt"
    robots.write_bytes(body)
    (row,) = _cli_rows(["check", "--robots", str(robots), "--agent", agent, "--dialect",
                        dialect, "--json", path])
    answers["check --robots"] = (row["allowed"], row["line"])

    server = _Body(body)
    try:
        url = server.base + path
        (row,) = _cli_rows(["check", "--agent", agent, "--dialect", dialect, "--json",
                            "--no-cache", url] if _has_flag("check", "--no-cache") else
                           ["check", "--agent", agent, "--dialect", dialect, "--json", url])
        answers["check URL"] = (row["allowed"], row["line"])
        urls = tmp / "urls.txt"
        urls.write_text(url + "\n", "utf-8")
        out = _run(["bulk", "--agent", agent, "--dialect", dialect, "--format", "csv",
                    *(["--no-cache"] if _has_flag("bulk", "--no-cache") else []), str(urls)])
        (brow,) = list(csv.DictReader(io.StringIO(out)))
        answers["bulk"] = (brow["allowed"].lower() == "true",
                           int(brow["line"]) if brow.get("line") else None)
    finally:
        server.close()

    response = web.post("/api/check", json={"robots_txt": body.decode("utf-8"), "urls": [path],
                                            "agents": [agent], "dialect": dialect})
    assert response.status_code == 200, response.text
    (cell,) = response.json()["results"]
    answers["/api/check"] = (cell["verdict"]["allowed"], cell["verdict"]["line"])

    parser = RobotFileParser(dialect=dialect)
    parser.parse(body.decode("utf-8").splitlines())
    v = parser.explain(agent, path)
    answers["compat"] = (v.allowed, v.line)

    from robotrules.scrapy import RobotParser

    answers["scrapy"] = (RobotParser(body, dialect=dialect).allowed(server.base + path, agent),
                         lib.line)
    return answers


_FLAGS: dict[tuple[str, str], bool] = {}


def _has_flag(command: str, flag: str) -> bool:
    key = (command, flag)
    if key not in _FLAGS:
        _FLAGS[key] = flag in _run([command, "--help"])
    return _FLAGS[key]


def _text_body(seed: int) -> bytes:
    """A generated body full of the quirks of tests/core/gen.py, kept to text lines (the
    drop-in's parse() takes text, as the stdlib's does)."""
    text = rand_body(random.Random(seed))
    return text.encode("utf-8", "replace").replace(b"\0", b"").replace(b"\r", b"\n")


@pytest.mark.slow  # every door for 40 hypothesis examples: about 25 s; CI runs -m slow
@settings(max_examples=40, deadline=None, derandomize=False, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), dialect=st.sampled_from(DIALECTS),
       agent=st.one_of(st.sampled_from([a for a in QUERY_AGENTS if a.strip()]),
                       st.sampled_from(HEADERS)),
       path_seed=st.integers(0, 10**9))
def test_every_door_gives_the_same_verdict_and_line(
        seed: int, dialect: Dialect, agent: str, path_seed: int, tmp_path: Path,
        web: TestClient) -> None:
    body = _text_body(seed)
    rng = random.Random(path_seed)
    patterns = [ln.split(":", 1)[1].strip().split("#")[0].strip()
                for ln in body.decode("utf-8").splitlines()
                if ln.strip().lower().startswith(("allow", "disallow")) and ":" in ln]
    path = rng.choice(patterns) if patterns and rng.random() < 0.6 else rand_path(rng)
    path = "/" + path.lstrip("/").replace("*", "x").replace("$", "").replace(" ", "")
    answers = _answers(body, path, agent, dialect, tmp_path, web)
    assert len(set(answers.values())) == 1, answers


def test_a_full_user_agent_header_selects_the_same_group_everywhere(
        tmp_path: Path, web: TestClient) -> None:
    """The issue's first example: a bingbot header must use bingbot's group at every door,
    not a 'Mozilla' group."""
    body = (b"User-agent: Mozilla\nDisallow: /\n\nUser-agent: bingbot\nDisallow: /b/\n\n"
            b"User-agent: *\nDisallow: /star/\n")
    agent = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
    answers = _answers(body, "/b/x", agent, "rfc9309", tmp_path, web)
    assert set(answers.values()) == {(False, 5)}, answers
    answers = _answers(body, "/a", agent, "rfc9309", tmp_path, web)
    assert set(answers.values()) == {(True, None)}, answers
