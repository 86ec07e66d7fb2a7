"""Merge a crawler list in ai.robots.txt's ``robots.json`` format into robotrules' registry.

Usage::

    python tools/refresh_agents.py robots.json                 # update the bundled registry
    python tools/refresh_agents.py robots.json --check         # report only; exit 1 if stale
    python tools/refresh_agents.py robots.json --registry other/agents.json

``robots.json`` (https://github.com/ai-robots-txt/ai.robots.txt) is an object keyed by the
name sites write in ``User-agent:`` lines, each with ``operator``, ``respect``, ``function``,
``frequency`` and ``description`` (free text, partly Markdown). The merge is conservative:

- a name the registry already knows (a token or an alias, compared case-insensitively, as
  robots.txt compares product tokens) changes nothing curated; only empty fields
  (``operator``, ``honours_robots``) are filled;
- a name that is a known name plus a version (``MistralAI-User/1.0``, ``Brightbot 1.0``), plus a
  domain (``panscient.com``) or with spaces (``Terra Cotta`` for ``TerraCotta``) becomes an
  alias of that crawler; names that are valid product tokens are merged first, so that the
  other spellings become their aliases rather than the reverse;
- any other name becomes a new crawler: its token as written, ``operator`` with Markdown links
  reduced to their text (``unknown`` for "Unclear at this time."), ``honours_robots`` from
  ``respect`` (``Yes`` -> true, ``No`` -> false, anything else -> null), ``purposes`` from
  ``function`` (Known Agents' categories and keywords, below), ``user_agent`` null (only a
  string the operator documents goes there, added by hand), and a description written from
  those fields (the list's own descriptions are not copied).

The registry keeps its order; new crawlers go at the end, in the list's order. The command
prints what it did, one line per change.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REGISTRY = Path(__file__).resolve().parents[1] / "src" / "robotrules" / "data" / "agents.json"

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_VERSIONED = re.compile(r"^(.+?)(?:/| )v?[0-9][0-9A-Za-z.]*$")
_DOMAIN = re.compile(r"^(.+?)\.(?:com|ai|io|net|org)$", re.IGNORECASE)
_TOKEN = re.compile(r"[A-Za-z_-]+")
_UNKNOWN = ("unclear", "unknown", "no information", "")

# Known Agents categories and free-text keywords -> purposes, first match wins.
_FUNCTION_PURPOSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("undocumented ai agents", ("other",)),
    ("ai search crawlers", ("ai-search",)),
    ("ai data providers", ("ai-search",)),
    ("ai assistants", ("user-fetch",)),
    ("ai agents", ("user-fetch",)),
    ("ai coding agents", ("user-fetch",)),
    ("ai data scrapers", ("training",)),
    ("search engine crawlers", ("search",)),
    ("seo", ("seo",)),
    ("social", ("social",)),
    ("archiv", ("archive",)),
    ("train", ("training",)),
    ("llm", ("training",)),
    ("dataset", ("training",)),
    ("user prompt", ("user-fetch",)),
    ("user", ("user-fetch",)),
    ("search", ("ai-search",)),
    ("scrap", ("training",)),
)
_PHRASES = {
    "training": "collects pages to train AI models",
    "ai-search": "indexes pages for an AI search or answer service",
    "user-fetch": "fetches pages when a user of an AI assistant or agent asks",
    "search": "crawls pages for a search engine",
    "seo": "crawls pages for SEO tools",
    "social": "fetches link previews for a social network",
    "archive": "archives pages",
    "other": "an AI-related agent whose use of pages is not documented",
}


def plain(text: str) -> str:
    """Markdown links reduced to their text, white space collapsed."""
    return " ".join(_LINK.sub(r"\1", text).split())


def operator_of(raw: object) -> str:
    text = plain(str(raw or ""))
    if text.lower().rstrip(".").startswith(_UNKNOWN[:3]) or not text:
        return "unknown"
    return text


def honours_of(raw: object) -> bool | None:
    text = plain(str(raw or "")).strip().lower()
    if text.startswith("yes"):
        return True
    if text.startswith("no") and not text.startswith("no information"):
        return False
    return None


def purposes_of(raw: object) -> list[str]:
    text = plain(str(raw or "")).lower()
    for needle, purposes in _FUNCTION_PURPOSES:
        if needle in text:
            return list(purposes)
    return ["other"]


def category_of(purposes: list[str]) -> str:
    if {"training", "ai-search", "user-fetch"} & set(purposes):
        return "ai"
    for p in ("search", "seo", "ads", "social", "archive"):
        if p in purposes:
            return p
    return "ai"  # the list is of AI-related agents: an undocumented one is still AI-related


def describe(operator: str, purposes: list[str]) -> str:
    what = _PHRASES[purposes[0]]
    who = "" if operator == "unknown" else f" ({operator})"
    return f"{what[0].upper()}{what[1:]}{who}; listed by ai.robots.txt."


def _base(names: dict[str, dict[str, Any]], key: str) -> dict[str, Any] | None:
    """The known crawler ``key`` is another spelling of, if any."""
    for pattern in (_VERSIONED, _DOMAIN):
        m = pattern.match(key)
        if m and m.group(1).lower() in names:
            return names[m.group(1).lower()]
    return names.get(key.replace(" ", "").lower()) if " " in key else None


def merge(registry: dict[str, Any], source: dict[str, Any]) -> list[str]:
    """Merge ``source`` (robots.json) into ``registry`` (agents.json) in place; the changes."""
    agents: list[dict[str, Any]] = registry["agents"]
    names: dict[str, dict[str, Any]] = {}
    for a in agents:
        for n in (*a["tokens"][:1], *a.get("aliases", ())):
            names.setdefault(n.lower(), a)
    changes: list[str] = []
    # product tokens first: other spellings of the same crawler then become their aliases
    items = sorted(source.items(), key=lambda kv: not (isinstance(kv[0], str)
                                                       and _TOKEN.fullmatch(kv[0].strip())))
    for key, info in items:
        if not isinstance(key, str) or not key.strip() or not isinstance(info, dict):
            changes.append(f"skipped {key!r}: not a name with an object")
            continue
        key = key.strip()
        entry = names.get(key.lower())
        if entry is not None:
            if not entry.get("operator") or entry.get("operator") == "unknown":
                op = operator_of(info.get("operator"))
                if op != "unknown":
                    entry["operator"] = op
                    changes.append(f"{entry['tokens'][0]}: operator {op!r}")
            if entry.get("honours_robots") is None:
                h = honours_of(info.get("respect"))
                if h is not None:
                    entry["honours_robots"] = h
                    changes.append(f"{entry['tokens'][0]}: honours_robots {h}")
            continue
        base = _base(names, key)
        if base is not None:
            base.setdefault("aliases", []).append(key)
            names[key.lower()] = base
            changes.append(f"{base['tokens'][0]}: alias {key!r}")
            continue
        purposes = purposes_of(info.get("function"))
        operator = operator_of(info.get("operator"))
        new = {
            "tokens": [key],
            "name": key,
            "operator": operator,
            "category": category_of(purposes),
            "purposes": purposes,
            "honours_robots": honours_of(info.get("respect")),
            "user_agent": None,
            "description": describe(operator, purposes),
            "source": "ai.robots.txt",
        }
        agents.append(new)
        names[key.lower()] = new
        changes.append(f"added {key!r} ({', '.join(purposes)})")
    return changes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("source", type=Path, help="a file in ai.robots.txt's robots.json format")
    parser.add_argument("--registry", type=Path, default=REGISTRY,
                        help="the registry to update (default: the bundled agents.json)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if the merge would change the registry")
    args = parser.parse_args(argv)
    try:
        source = json.loads(args.source.read_text("utf-8"))
        registry = json.loads(args.registry.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        print(f"refresh_agents: {exc}", file=sys.stderr)
        return 2
    if not isinstance(source, dict) or not isinstance(registry.get("agents"), list):
        print("refresh_agents: the source must be a JSON object keyed by crawler name and the "
              "registry must hold an 'agents' list", file=sys.stderr)
        return 2
    changes = merge(registry, source)
    for line in changes:
        print(line)
    if args.check:
        return 1 if changes else 0
    if changes:
        args.registry.write_text(json.dumps(registry, indent=1, ensure_ascii=False) + "\n",
                                 "utf-8")
    print(f"{len(changes)} change(s); {len(registry['agents'])} crawlers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
