"""``robotrules check``: may an agent fetch these URLs? One verdict per URL, with its line.

The human answer says which line decided and, in the library's words (``Verdict.detail``),
which group was chosen and why, and when nothing matched, that a URL no rule matches is
allowed (RFC 9309 2.2.2). The agent is shown as it was read: ``--agent ''`` is answered like
the library answers it (the spec-test drop-in depends on that) and shown as ``''``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from robotrules import InvalidURL, RobotsTxt, Verdict, parse

from ._common import (
    CliError,
    agent_token,
    color_mode,
    color_option,
    describe_agent,
    dialect_option,
    emit_json,
    fetch_options,
    header_for,
    json_option,
    make_client,
    policy_token_option,
    read_file,
    size_option,
    url_error,
)
from ._outcomes import Reachability, unreachable_option

if TYPE_CHECKING:
    from robotrules import Group

    from ._ui import Ui

HELP = """May an agent fetch these URLs? One verdict per URL, with the line that decided it.

\b
examples:
  robotrules check https://example.com/private/x --agent Googlebot
  robotrules check --robots examples/robots.txt --agent GPTBot https://example.com/a /b?q=1
  robotrules check --json --agent "Mozilla/5.0 (compatible; bingbot/2.0)" https://example.com/
  robotrules check --min-ttl 0 --agent MyBot https://example.com/   # honour max-age exactly

Without --robots each URL's robots.txt is fetched and cached in SQLite under the user cache
directory (XDG_CACHE_HOME honoured; --no-cache to skip). With --robots FILE and one URL this
is a drop-in for the CLI google/robotstxt-spec-test drives: exit 0 allowed, 1 disallowed. A
file over 500 KiB is judged on its first 500 KiB, as crawlers read it (RFC 9309 2.5).

\b
exit status: 0 all allowed, 1 any disallowed, 2 usage or input error."""


@click.command("check", help=HELP, short_help="may an agent fetch these URLs?",
               context_settings={"max_content_width": 100})
@click.argument("urls", nargs=-1, required=True, metavar="URL...")
@click.option("--agent", "-a", required=True,
              help="product token (Googlebot) or a full User-Agent string")
@click.option("--robots", "-r", metavar="FILE",
              help="use this robots.txt file ('-' for stdin) instead of fetching")
@dialect_option()
@json_option("JSON Lines: one object per URL")
@fetch_options
@click.option("--no-cache", is_flag=True, help="do not use the on-disk cache")
@size_option
@unreachable_option
@policy_token_option
@color_option
def check(urls: tuple[str, ...], agent: str, robots: str | None, dialect: str, as_json: bool,
          timeout: float | None, min_ttl: float | None, no_cache: bool, no_size_limit: bool,
          fail_on_unreachable: bool, policy_tokens: dict[str, str] | None,
          color: str | None) -> int:
    token = agent_token(agent)
    ui: Ui | None = None
    if not as_json:
        from ._ui import Ui

        ui = Ui(color_mode(color))
    any_disallowed = False
    fixed: RobotsTxt | None = None
    client = None
    if robots is not None:
        fixed = parse(read_file(robots, whole=no_size_limit), dialect)  # type: ignore[arg-type]
    else:
        bad = [u for u in urls if not u.lower().startswith(("http://", "https://"))]
        if bad:
            raise CliError(f"{bad[0]!r} is not an absolute http(s) URL (or pass --robots FILE)")
        client = make_client(user_agent=header_for(agent), dialect=dialect,  # type: ignore[arg-type]
                             timeout=timeout, cache=not no_cache, min_ttl=min_ttl)
    groups: dict[int, Group | None] = {}
    reach = Reachability()
    try:
        for url in urls:
            fetched = None
            try:
                if client is not None:
                    fetched = client.rules_for(url)
                    reach.saw(fetched)
                    rules: RobotsTxt = fetched.rules
                    verdict = fetched.explain(url, user_agent=token)
                else:
                    assert fixed is not None
                    rules = fixed
                    verdict = fixed.explain(url, user_agent=token)
            except InvalidURL as exc:
                raise CliError(url_error(exc)) from None
            any_disallowed |= not verdict.allowed
            text = rules.line_text(verdict.line).strip() if verdict.line is not None else None
            if ui is None:
                row: dict[str, Any] = {"url": url, "allowed": verdict.allowed,
                                       "line": verdict.line, "text": text, "agent": token}
                row.update({k: v for k, v in verdict.to_dict().items()
                            if k not in ("allowed", "line")})
                if fetched is not None:
                    row.update(robots_url=fetched.robots_url, status=fetched.status,
                               outcome=fetched.outcome, summary=fetched.summary,
                               from_cache=fetched.from_cache)
                    # only when there is something to say (the rows stay
                    # byte-exact for files and answers without usage signals)
                    if fetched.licence_required:
                        row["licence_required"] = fetched.licence_required
                    if fetched.licenses:
                        row["licenses"] = list(fetched.licenses)
                usage = _usage_row(rules, verdict, policy_tokens)
                if usage is not None:
                    row["usage"] = usage
                emit_json(row)
                continue
            key = id(rules)
            if key not in groups:
                groups[key] = rules.group_for(token)
            _human(ui, url, agent, token, verdict, text, fetched, groups[key])
    finally:
        if client is not None:
            client.close()
    return reach.status(1 if any_disallowed else 0, fail_on_unreachable)


def _human(ui: Ui, url: str, given: str, token: str, v: Verdict, text: str | None,
           fetched: Any, group: Group | None) -> None:
    mark = ("allowed   ", "bold green") if v.allowed else ("disallowed", "bold red")
    ui.line(mark, " ", (url, "bold"), f"  ({describe_agent(given, token, group)})")
    if v.line is not None:
        ui.line(f"    line {v.line}: \"", ui.robots_line(text or "", "bold"), "\"")
    # The words are the library's (Verdict.detail): which group applies and why, which rule
    # decided or why none matched, so that the CLI, the web tester and explain() agree.
    ui.line("    why: ", v.detail or v.reason)
    if fetched is not None:
        src = "cache" if fetched.from_cache else "fetched"
        ui.line((f"    robots.txt: {fetched.robots_url} ({src}): {fetched.summary}", "dim"))


def _usage_row(rules: RobotsTxt, verdict: Verdict,
               policy_tokens: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The AI usage signals of one verdict for ``--json`` (robotrules.aipref): the
    categories stated, Content-Signal's ``use``, the file's RSL licences and the policy-token
    groups that spoke; None for a file without AI-preference lines."""
    from robotrules.aipref import policy_groups, preference_lines, usage_of_verdict

    if not preference_lines(rules) and not policy_groups(rules, policy_tokens):
        return None
    u = usage_of_verdict(rules, verdict, policy_tokens=policy_tokens)
    return {"categories": {k: v for k, v in u.categories.items() if v is not None},
            "lines": list(u.lines), "use": u.use, "licenses": list(u.licenses),
            "policy_tokens": list(u.policy_tokens)}
