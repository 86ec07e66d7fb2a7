"""Random robots.txt bodies, agents and URLs built to hit Google's matcher quirks.

Shared by the differential tests (against Google's C++ matcher through jwm-robotstxt) and the
benchmark's agreement check. Deterministic for a given seed.
"""

from __future__ import annotations

import random

KEYS = [
    "User-agent", "user-agent", "USER-AGENT", "User-Agents", "useragent", "user agent",
    "Allow", "allow", "ALLOW", "Allowed", "Disallow", "disallow", "DISALLOW", "Disallowed",
    "dissallow", "dissalow", "disalow", "diasllow", "disallaw", "Sitemap", "site-map",
    "Crawl-delay", "Request-rate", "foo", "Host", "noindex", "", "user_agent", "Allo",
]
AGENTS = ["FooBot", "foobot", "BarBot", "*", "* foo", "*foo", "Foo", "Foo-Bar", "Foo_Bar",
          "FooBot/2.1", "Foo Bar", "Foo2Bot", "", "Googlebot", "googlebot-news", "Baz"]
QUERY_AGENTS = ["FooBot", "foobot", "BarBot", "Foo", "Foo-Bar", "Foo_Bar", "Googlebot",
                "googlebot-news", "Baz", "Qux", "FOOBOT", "AB42bot", "Foo Bar", ""]
PATH_ATOMS = ["/", "a", "b", "foo", "bar", "*", "$", "?", "=", "&", ".html", "index.html",
              "index.htm", "%2A", "%24", "%2f", "%2F", "%41", "%a", "%", "é", "\u30c4", " ",
              ";", "#", "~", "-", "_", ".", "%E3%83%84", "%e3%83%84", "/index.html", "//",
              "q=1", "%20", "+", ":", "@", "\t"]
SEPS = [": ", ":", " : ", "\t:\t", " ", "\t", ":  ", "::"]
EOLS = ["\n", "\r\n", "\r", "\n\r", "\n\n"]


def rand_path(rng: random.Random, lead: bool = True) -> str:
    n = rng.randint(0, 6)
    s = "/" if lead and rng.random() < 0.9 else ""
    return s + "".join(rng.choice(PATH_ATOMS) for _ in range(n))


def rand_line(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.05:
        return ""
    if r < 0.08:
        return "# comment " + rand_path(rng)
    if r < 0.10:
        return rng.choice(["<html>", "junk line here", "   ", "\ufeff", "http://x.com/s.xml"])
    key = rng.choice(KEYS)
    if key.lower().startswith(("user", "useragent")):
        value = rng.choice(AGENTS)
    elif key.lower().startswith(("sitemap", "site-map")):
        value = "http://example.com/sitemap.xml"
    elif key.lower().startswith("crawl"):
        value = rng.choice(["5", "0.5", "abc", "-1"])
    else:
        value = rand_path(rng, lead=rng.random() < 0.85)
    pre = rng.choice(["", "", "", " ", "\t"])
    post = rng.choice(["", "", "", " ", " # trailing", "\t"])
    return pre + key + rng.choice(SEPS) + value + post


def rand_body(rng: random.Random) -> str:
    lines: list[str] = []
    for _ in range(rng.randint(0, 6)):
        lines.append(f"User-agent: {rng.choice(AGENTS)}")
        for _ in range(rng.randint(0, 5)):
            lines.append(rand_line(rng) if rng.random() < 0.4 else
                         f"{rng.choice(['Allow', 'Disallow'])}: {rand_path(rng)}")
    for _ in range(rng.randint(0, 4)):
        lines.insert(rng.randint(0, len(lines)), rand_line(rng))
    body = ""
    for line in lines:
        body += line + rng.choice(EOLS)
    if rng.random() < 0.05:
        body = "\ufeff" + body
    return body


def rand_url(rng: random.Random) -> str:
    form = rng.random()
    path = rand_path(rng)
    if rng.random() < 0.3:
        path += "?" + rng.choice(["q=1", "a=b&c=d", "", "x=%2A", "s=*"])
    if rng.random() < 0.1:
        path += "#frag"
    if form < 0.7:
        return "http://example.com" + (path if path.startswith("/") else "/" + path)
    if form < 0.85:
        return path
    return rng.choice(["", "http://example.com", "//example.com/x", "example.com/a/b",
                       "https://example.com:8080/robots.txt", "http://example.com;p"])


def rand_case(rng: random.Random) -> tuple[str, str, str]:
    return rand_body(rng), rng.choice(QUERY_AGENTS), rand_url(rng)
