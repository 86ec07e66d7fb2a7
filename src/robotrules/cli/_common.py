"""What the sub-commands share: errors, options, JSON Lines, agents, reading FILE_OR_URL.

Reading is bounded. RFC 9309 2.5 lets a crawler stop at 500 KiB (512,000 bytes,
:data:`robotrules._policy.DEFAULT_MAX_BYTES`), so a local file is judged as a fetched one is:
on its first 500 KiB, cut at the last complete line (the fetcher's own
:class:`~robotrules._policy.BodyDecoder` does the cut), with a note on stderr. ``lint`` reads
64 KiB more so that it can report the overflow (L018). At most ``cap + 1`` bytes are read, so
``/dev/zero`` or a 50 MB file costs the same memory and time as a 500 KiB one (``lint``
reports what it read, and a file that is not text, L048/L049);
``--no-size-limit`` reads a file whole. Click is loaded with the command modules (never by
``robotrules.cli`` itself, the entry point, so that a core install can say what is missing);
httpx and the fetch client load when a command fetches, Rich when it writes for people
(``_ui``).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from robotrules import Dialect, RobotsTxt, parse
from robotrules._dialects import NAMES
from robotrules._origin import origin_of
from robotrules._policy import DEFAULT_MAX_BYTES, BodyDecoder, check_number
from robotrules._token import product_token
from robotrules.errors import InvalidURL
from robotrules.lint._transport import not_text

if TYPE_CHECKING:
    from robotrules import Group
    from robotrules.fetch import FetchedRobots, RobotsClient

    from ._outcomes import Reachability

__all__ = [
    "DIALECTS",
    "CliError",
    "Seconds",
    "Source",
    "agent_token",
    "describe_agent",
    "emit_json",
    "is_url",
    "load_source",
    "make_client",
    "need_fetch",
    "note",
    "policy_token_option",
    "url_error",
]

DIALECTS: tuple[Dialect, ...] = NAMES
LINT_MARGIN = 65_536  # lint reads this much past the cap, to report what the cap cuts (L018)
F = TypeVar("F", bound=Callable[..., Any])


class CliError(Exception):
    """A usage, input or environment error: one line on stderr, exit status 2."""


# -- options ---------------------------------------------------------------------------------


class Seconds(click.ParamType):  # type: ignore[type-arg]  # generic from Click 8.3 on
    """A finite number of seconds: > 0, or >= 0 with ``zero_ok`` (``nan``, ``inf``, ``-1``
    are refused with the option's name, before any client sees them)."""

    name = "seconds"

    def __init__(self, *, zero_ok: bool = False) -> None:
        self.zero_ok = zero_ok

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is not a number of seconds", param, ctx)
        try:  # the clients' own rule (robotrules._policy.check_number), checked before them
            check_number("seconds", number, allow_zero=self.zero_ok)
        except ValueError:
            bound = ">= 0" if self.zero_ok else "> 0"
            self.fail(f"{value!r} is not a finite number of seconds {bound}", param, ctx)
        return number


def dialect_option(help: str = "matching rules: rfc9309 (default), google or 1994") -> Callable[
        [F], F]:
    return click.option("--dialect", "-d", type=click.Choice(DIALECTS), default="rfc9309",
                        show_default=False, help=help)


def _policy_tokens(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
                   ) -> dict[str, str] | None:
    from robotrules.aipref import parse_policy_tokens

    try:
        return parse_policy_tokens(value) or None
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def policy_token_option(f: F) -> F:
    """``--policy-token TOKEN=CATEGORY`` (repeatable): groups naming TOKEN are usage statements
    for CATEGORY, not crawlers (robotrules.aipref.policy_tokens); the value is a table or
    ``None`` (the built-in one)."""
    return click.option(
        "--policy-token", "policy_tokens", multiple=True, metavar="TOKEN=CATEGORY",
        callback=_policy_tokens,
        help="a policy token whose groups state a usage preference, not a crawler's rules "
             "(draft-kelley-aipref-training-preference-signal; repeatable), e.g. "
             "ExamplePolicy=train-ai")(f)


def json_option(help: str) -> Callable[[F], F]:
    return click.option("--json", "as_json", is_flag=True, help=help)


def fetch_options(f: F) -> F:
    """``--timeout`` and ``--min-ttl``: the settings of every command that fetches."""
    f = click.option("--min-ttl", type=Seconds(zero_ok=True), default=None, metavar="S",
                     help="floor on how long a fetched robots.txt stays fresh, whatever its "
                          "Cache-Control says (default 60; 0 honours max-age exactly)")(f)
    return click.option("--timeout", type=Seconds(), default=None, metavar="S",
                        help="HTTP timeout in seconds (default 30; connecting: 5)")(f)


def size_option(f: F) -> F:
    return click.option("--no-size-limit", is_flag=True,
                        help="read a local file whole instead of its first 500 KiB "
                             "(RFC 9309 2.5 lets crawlers stop there)")(f)


def color_option(f: F) -> F:
    """``--color`` after the sub-command too (the group's value stands unless given here)."""
    return click.option("--color", "color", type=click.Choice(("auto", "always", "never")),
                        default=None, expose_value=True,
                        help="colour: auto (on a terminal, unless NO_COLOR), always, never")(f)


def color_mode(color: str | None) -> str:
    """The ``--color`` given after the command, else the group's, else ``auto``."""
    if color is not None:
        return color
    ctx = click.get_current_context(silent=True)
    while ctx is not None:
        obj = ctx.obj
        if isinstance(obj, dict) and obj.get("color"):
            return str(obj["color"])
        ctx = ctx.parent
    return "auto"


# -- output ----------------------------------------------------------------------------------


def emit_json(obj: Any, stream: IO[str] | None = None) -> None:
    """One JSON object on one line (JSON Lines); file content kept exact, never escaped."""
    (stream or sys.stdout).write(json.dumps(obj, ensure_ascii=False, sort_keys=False) + "\n")


def note(message: str) -> None:
    """A remark on stderr that does not change the exit status (control characters shown)."""
    from ._ui import visible

    sys.stderr.write(f"robotrules: note: {visible(message)}\n")
    sys.stderr.flush()


# -- agents ----------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z_-]+")


def agent_token(agent: str) -> str:
    """The product token ``--agent`` is matched by, as the library reads it
    (:func:`robotrules._token.product_token`: a token as given, or the crawler's token of a
    full User-Agent header), so that the CLI and the library always answer alike."""
    return product_token(agent)


def describe_agent(given: str, token: str, group: Group | None) -> str:
    """How ``--agent`` was read, in words: ``Googlebot``, or for values no ``User-agent``
    line can name (``''``, ``***``) the value quoted and which group it ends up with."""
    if _TOKEN.fullmatch(token):
        shown = token if token == given else f"{token} (from {given!r})"
        return f"agent {shown}"
    if group is None:
        fate = "matches no named group, and there is no * group"
    elif group.is_global:
        fate = "matches no named group, uses *"
    else:
        fate = f"matched the group at line {group.line}"
    return f"agent: {token!r} \N{EM DASH} {fate}"


# -- URLs ------------------------------------------------------------------------------------

_HINT = re.compile(r" \(did you mean '([^']*)'\?\)")


def is_url(text: str) -> bool:
    return re.match(r"(?i)https?://", text) is not None


def url_error(exc: Exception) -> str:
    """An InvalidURL message, keeping its "did you mean" only when that suggestion is itself
    a valid URL (``https:///relative/path`` and ``https://not a url`` are not)."""

    message = str(exc)
    m = _HINT.search(message)
    if m is not None:
        try:
            origin_of(m.group(1))
            ok = not any(c.isspace() for c in m.group(1))
        except InvalidURL:
            ok = False
        if not ok:
            message = message[: m.start()] + message[m.end():]
    return message


# -- fetching --------------------------------------------------------------------------------


def need_fetch() -> None:
    """Fail with the extra to install when the fetch dependencies are missing."""
    try:
        import httpx  # noqa: F401

        import robotrules.fetch  # noqa: F401
    except ImportError as exc:
        raise CliError(
            f"fetching URLs needs the 'cli' extra ({exc.name or exc} is missing): "
            "pip install 'robotrules[cli]' (from a checkout: pip install -e '.[cli]')"
        ) from None


def client_settings(*, timeout: float | None, min_ttl: float | None,
                    max_bytes: int | None = None) -> dict[str, Any]:
    """Keyword arguments for either fetch client from the command's options."""
    kwargs: dict[str, Any] = {}
    if timeout is not None:
        kwargs["timeout"] = timeout
        kwargs["connect_timeout"] = min(timeout, 5.0)
    if min_ttl is not None:
        kwargs["min_ttl"] = min_ttl
    if max_bytes is not None:
        kwargs["max_bytes"] = max_bytes
    return kwargs


def make_client(*, user_agent: str | None, dialect: Dialect, timeout: float | None,
                cache: bool, min_ttl: float | None = None, max_bytes: int | None = None
                ) -> RobotsClient:
    need_fetch()
    from robotrules.fetch import DEFAULT_USER_AGENT, RobotsClient
    from robotrules.stores import MemoryStore, SQLiteStore

    store = SQLiteStore() if cache else MemoryStore()
    return RobotsClient(user_agent=user_agent or DEFAULT_USER_AGENT, store=store,
                        dialect=dialect, **client_settings(timeout=timeout, min_ttl=min_ttl,
                                                           max_bytes=max_bytes))


def header_for(agent: str) -> str | None:
    """The User-Agent header to send: ``--agent`` when it is a full UA string."""
    return agent if "/" in agent else None


# -- reading FILE_OR_URL ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """A robots.txt read from a file, stdin or a URL.

    ``body`` is what is judged (at most the cap, see the module docstring); ``cut`` says the
    input was longer; ``size`` is the whole input's size when known (a regular file).
    """

    name: str
    body: bytes
    status: int | None = None
    content_type: str | None = None
    url: str | None = None
    fetched: FetchedRobots | None = None
    cut: bool = False
    size: int | None = None

    def rules(self, dialect: Dialect) -> RobotsTxt:
        if self.fetched is not None and self.fetched.rules.dialect == dialect:
            return self.fetched.rules
        return parse(self.body, dialect)


def cap_bytes() -> int:

    return DEFAULT_MAX_BYTES


def read_bounded(path: str, limit: int | None) -> tuple[bytes, bool, int | None]:
    """``(bytes read, whether there were more than limit, the whole size if known)``.

    Reads at most ``limit + 1`` bytes; the extra byte tells a file of exactly ``limit``
    bytes from a longer one.
    """

    size: int | None = None
    try:
        if path == "-":
            data = sys.stdin.buffer.read() if limit is None else sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                try:
                    st = os.fstat(fh.fileno())
                    size = st.st_size if stat.S_ISREG(st.st_mode) else None
                except OSError:
                    size = None
                data = fh.read() if limit is None else fh.read(limit + 1)
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    cut = limit is not None and len(data) > limit
    return data, cut, size


def read_file(path: str, *, whole: bool = False, name: str | None = None) -> bytes:
    """A robots.txt file judged as crawlers read it: its first 500 KiB (see module doc).

    A file holding NUL bytes is refused (exit 2, lint's L048): binary data is not a robots.txt
    (RFC 9309 2.3: UTF-8 text), and a verdict drawn from it ("allowed": no rule in it) would
    be an answer about the wrong file."""
    cap = cap_bytes()
    data, cut, size = read_bounded(path, None if whole else cap)
    _refuse_binary(name or path, data)
    if not cut:
        return data
    body = _line_cut(data, cap)
    _note_cut(name or path, len(body), size, lint=False)
    return body


def _refuse_binary(name: str, data: bytes) -> None:

    for f in not_text(data, b"", truncated=False):  # L048 (L049 needs a cut it is not told)
        raise CliError(f"{name} is not a robots.txt: {f.message} (lint {f.code}; fix: {f.fix})")


def _line_cut(data: bytes, limit: int) -> bytes:
    """The fetcher's cut (RFC 9309 2.5): the first ``limit`` bytes, the partial last line
    dropped rather than parsed (:class:`robotrules._policy.BodyDecoder`)."""

    decoder = BodyDecoder("", limit)
    decoder.feed(data)
    body, _ = decoder.finish(complete=False)
    return body


def _note_cut(name: str, judged: int, size: int | None, *, lint: bool) -> None:
    whole = f"{size:,} bytes" if size is not None else f"more than {cap_bytes():,} bytes"
    if not lint and judged == 0:
        note(f"{name} is {whole} and no line ends in the first {cap_bytes():,} (the 500 KiB "
             "crawlers read, RFC 9309 2.5): crawlers drop a line the limit cuts, so nothing "
             "of it counts; --no-size-limit reads it all")
        return
    if lint:
        note(f"{name} is {whole}: lint read its first {judged:,} bytes (the 500 KiB a crawler "
             "reads, RFC 9309 2.5, and 64 KiB more); --no-size-limit reads it all")
    else:
        note(f"{name} is {whole}: judged on its first {judged:,} bytes, as crawlers read it "
             "(RFC 9309 2.5: 500 KiB); --no-size-limit reads it all")


def robots_url_of(url: str) -> str:
    need_fetch()
    from robotrules.fetch import robots_url

    return robots_url(url)


def load_source(arg: str, *, dialect: Dialect, timeout: float | None = None,
                min_ttl: float | None = None, agent: str | None = None,
                for_lint: bool = False, whole: bool = False,
                reach: Reachability | None = None) -> Source:
    """A FILE (or ``-``) read up to the cap, or a URL's robots.txt fetched now (no cache);
    ``reach`` hears of a fetch that failed (it warns once, and counts it)."""
    cap = cap_bytes()
    limit = cap + LINT_MARGIN if for_lint else cap
    if not is_url(arg):
        if for_lint:
            # lint gets the bytes as read, partial last line included: it drops that line
            # as crawlers do, but looks at it (NUL bytes L048, a line past the cap L049)
            body, cut, size = read_bounded(arg, None if whole else limit)
            if cut:
                body = body[:limit]
                _note_cut(arg, len(body), size, lint=True)
            return Source(arg, body, cut=cut, size=size)
        body = read_file(arg, whole=whole)
        return Source(arg, body)

    client = make_client(user_agent=agent, dialect=dialect, timeout=timeout, cache=False,
                         min_ttl=min_ttl, max_bytes=limit)
    try:
        fetched = client.rules_for(arg)
    except InvalidURL as exc:
        raise CliError(url_error(exc)) from None
    finally:
        client.close()
    if reach is not None:
        reach.saw(fetched)
    body = fetched_body(client, fetched)
    return Source(fetched.robots_url, body, fetched.status,
                  fetched.headers.get("content-type"), arg, fetched, cut=fetched.truncated)


def fetched_body(client: RobotsClient, fetched: FetchedRobots) -> bytes:
    """The raw bytes behind a fetched robots.txt (the store keeps them)."""
    entry = client.memo_entry(fetched.origin) if fetched.origin else None
    body = getattr(entry, "body", None)
    return body if isinstance(body, bytes) else b""


def iter_lines(stream: IO[str], limit: int = 65_536) -> Iterator[str]:
    """Non-empty, non-comment lines; a line longer than ``limit`` characters is cut there
    (and the rest of it skipped without being held in memory)."""
    while True:
        line = stream.readline(limit)
        if not line:
            return
        if not line.endswith("\n"):
            while (rest := stream.readline(limit)) and not rest.endswith("\n"):
                pass
        line = line.strip()
        if line and not line.startswith("#"):
            yield line
