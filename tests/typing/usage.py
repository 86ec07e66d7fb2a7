"""The public API used as users would; checked by `mypy --strict` (see pyproject), not run.

STYLE (hynek/stamina): a typing test file that uses the public API, so that a change to a
public signature that breaks user code fails the type check.
"""

from __future__ import annotations

import robotrules
from robotrules import Finding, Group, RequestRate, RobotsTxt, Rule, Verdict
from robotrules.fetch import AsyncRobotsClient, FetchedRobots, RobotsClient, origin_of
from robotrules.stores import MemoryStore, SQLiteStore


def core(body: bytes) -> None:
    rules: RobotsTxt = robotrules.parse(body, "google")
    allowed: bool = rules.is_allowed("https://example.com/x", user_agent="ExampleBot")
    verdict: Verdict = rules.explain("/x", user_agent="ExampleBot/2.1 (+https://e.org/bot)")
    line: int | None = verdict.line
    rule: Rule | None = verdict.rule
    agents: tuple[str, ...] = verdict.agents
    delay: float | None = rules.crawl_delay(user_agent="ExampleBot")
    rate: RequestRate | None = rules.request_rate(user_agent="ExampleBot")
    sitemaps: list[str] = rules.sitemaps
    groups: tuple[Group, ...] = rules.groups
    findings: list[Finding] = robotrules.lint(body)
    print(allowed, line, rule, agents, delay, rate, sitemaps, groups, findings)


def fetching(url: str) -> None:
    with RobotsClient(user_agent="ExampleBot/1.0", store=MemoryStore()) as client:
        fetched: FetchedRobots = client.rules_for(url)
        ok: bool = client.is_allowed(url, user_agent="ExampleBot")
        print(fetched.outcome, fetched.status, ok, origin_of(url))
    SQLiteStore()


async def fetching_async(url: str) -> None:
    async with AsyncRobotsClient(user_agent="ExampleBot/1.0") as client:
        verdict: Verdict = await client.explain(url, user_agent="ExampleBot")
        print(verdict.allowed)
