"""robotrules._wording: every sentence a verdict's detail says, each form with its source.

Each form is checked as a pure function of its facts, then end to end: the ``detail`` of a
verdict the facade builds (on the native peer and on the pure one) is the sentence the
function writes from that verdict's facts, so the facade words nothing itself.
"""

from __future__ import annotations

import pickle

import pytest

import robotrules
from robotrules import _wording
from robotrules._robots import reference

PEERS = [pytest.param(robotrules.parse, id="selected"), pytest.param(reference, id="pure")]


def test_robots_txt_is_always_allowed() -> None:
    # RFC 9309 2.2.2: "The /robots.txt URI is implicitly allowed."
    assert _wording.ROBOTS_TXT == "/robots.txt is always allowed (RFC 9309 2.2.2)"


def test_no_group_allows_everything() -> None:
    # RFC 9309 2.2.1: no group matches the product token and no "*" group: "no rules apply"
    assert _wording.NO_GROUP == "no group applies to this user agent: everything is allowed"


def test_where_names_the_group_of_the_token() -> None:
    # RFC 9309 2.2.1: a crawler obeys the group whose user-agent line names its product token
    assert _wording.where([3], "ExampleBot", False) == "the group for 'ExampleBot' (line 3) applies"


def test_where_says_merged_groups() -> None:
    # RFC 9309 2.2.1: "the matching groups' rules MUST be combined into one group"
    assert (_wording.where([1, 7], "ExampleBot", False)
            == "the group for 'ExampleBot' (lines 1, 7, merged) applies")


def test_where_falls_back_to_the_star_group() -> None:
    # RFC 9309 2.2.1: "If no matching group exists, crawlers MUST obey the group with a
    # user-agent line with the "*" value, if present."
    assert (_wording.where([1], "ExampleBot", True)
            == "no group names 'ExampleBot', so the '*' group (line 1) applies")
    assert _wording.where([1], "*", True) == "the '*' group (line 1) applies"
    assert _wording.where([1, 4], "", True) == "the '*' group (lines 1, 4, merged) applies"


def test_decided_names_line_rule_and_verb() -> None:
    # RFC 9309 2.2.2: the most specific match decides; the sentence names it and its group
    assert (_wording.decided(2, "Disallow: /x", False, "the '*' group (line 1) applies")
            == "line 2 'Disallow: /x' disallows it (the '*' group (line 1) applies)")
    assert (_wording.decided(3, "Allow: /x/y", True, "w")
            == "line 3 'Allow: /x/y' allows it (w)")


def _verdict(path: str) -> robotrules.Verdict:
    return robotrules.Verdict(True, None, None, (), "no-matching-rule", "*", path, "rfc9309")


def test_no_match_is_allowed() -> None:
    # RFC 9309 2.2.2: "If no match is found amongst the rules in a group for a matching
    # user-agent or there are no rules in the group, the URI is allowed."
    assert (_wording.no_match(_verdict("/a"), "w", 2)
            == "w; none of its 2 rule(s) matches '/a', so it is allowed (a path no rule "
               "matches is allowed, RFC 9309 2.2.2)")


def test_empty_rule_report() -> None:
    # robots.cc (Google's parser): an empty pattern matches at priority 0 and its line is the
    # one Match reports (matching_line()), though it decides nothing: everything is allowed
    assert (_wording.empty_rule(_verdict("/a"), "w", 2, "Disallow:")
            == "w; no rule with a pattern matches '/a', and line 2 'Disallow:' is empty: it "
               "allows everything (RFC 9309 2.2.2)")


def test_written_reads_text_or_facts() -> None:
    # robotrules._model: a detail is stored as the sentence or as (write, *facts)
    v = _verdict("/p")
    assert _wording.written(v, "as is") == "as is"
    assert _wording.written(v, (_wording.no_match, "w", 1)) == _wording.no_match(v, "w", 1)


def test_joined_adds_preferences_only_when_there_are_some() -> None:
    assert _wording.joined("base", "") == "base"
    assert _wording.joined("base", "prefs") == "base; prefs"


BODY = b"User-agent: *\nDisallow: /x\nAllow:\n\nUser-agent: a\nUser-agent: b\nDisallow: /y\n"


@pytest.mark.parametrize("read", PEERS)
def test_verdicts_say_what_the_wording_writes(read: object) -> None:
    rules = read(BODY, "google")  # type: ignore[operator]
    star = _wording.where([1], "Other", True)
    v = rules.explain("https://e.com/x/1", user_agent="Other")
    assert v.detail == _wording.decided(2, "Disallow: /x", False, star)
    v = rules.explain("https://e.com/z", user_agent="Other")
    assert v.detail == _wording.empty_rule(v, star, 3, "Allow:")
    v = rules.explain("https://e.com/z", user_agent="a")
    assert v.detail == _wording.no_match(v, _wording.where([5], "a", False), 1)
    assert pickle.loads(pickle.dumps(v)).detail == v.detail


@pytest.mark.parametrize("read", PEERS)
def test_no_group_verdict(read: object) -> None:
    rules = read(b"User-agent: a\nDisallow: /\n", "rfc9309")  # type: ignore[operator]
    assert rules.explain("https://e.com/", user_agent="b").detail == _wording.NO_GROUP
    # the rfc9309 dialect reads /robots.txt as allowed whatever the rules (robotrules._dialects)
    assert rules.explain("https://e.com/robots.txt", user_agent="a").detail == (
        _wording.ROBOTS_TXT)
