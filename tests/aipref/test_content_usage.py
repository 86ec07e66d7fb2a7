"""Content-Usage in robots.txt (draft-ietf-aipref-attach-05 §3, vocab-07), rule by rule.

Every expectation cites the draft sentence it comes from (AI-PREFERENCES.md 1.1 and 1.2 quote
them): "attach §3.1" = "Content-Usage Rule Semantics", "attach §3.2" = "Processing
Content-Usage Rules", "attach §3.4" = "Example"; vocab "Processing Algorithm", "Multiple
Preferences", "Preference Parameters", "Combining Preferences", "Preference Labels".
"""

from __future__ import annotations

import pytest

import robotrules
from robotrules import aipref, parse

# attach-05 §3.4 "Example" (AI-PREFERENCES.md 1.2): the worked example, with the path-less
# first rule of -05 and the ExampleBot group of the draft.
WORKED = """\
User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: / train-ai=y
"""


@pytest.mark.parametrize(
    ("path", "crawl", "train_ai", "lines"),
    [
        ("/test", True, False, (4,)),  # "all other resources have ... train-ai=n"
        ("/never/test", False, None, ()),  # crawl no, usage preference "N/A"
        ("/ai-ok/test", True, True, (5,)),  # "those under /ai-ok/ have ... train-ai=y"
    ],
)
def test_attach_3_4_worked_example(path: str, crawl: bool, train_ai: bool | None,
                                   lines: tuple[int, ...]) -> None:
    rules = parse(WORKED)
    u = rules.usage("https://example.com" + path, user_agent="SomeBot")
    assert u.crawl is crawl
    assert u.crawl == rules.is_allowed("https://example.com" + path, user_agent="SomeBot")
    assert u["train-ai"] is train_ai
    assert u.lines == lines


def test_attach_3_4_examplebot_uses_its_own_group() -> None:
    """attach §3.4: "A crawler that identifies as ExampleBot uses the second group"."""
    rules = parse(WORKED)
    for path in ("/test", "/never/test", "/ai-ok/test"):
        u = rules.usage(path, user_agent="ExampleBot")
        assert u.crawl is True
        assert u["train-ai"] is True
        assert u.lines == (9,)


def test_attach_3_4_draft_text_with_explicit_root_path() -> None:
    """The -05 text as stored writes the first rule `Content-Usage: / train-ai=n`; `/` and no
    path both match every path (a path-less rule at length 0, `/` at length 1), so the table
    is the same."""
    rules = parse(WORKED.replace("Content-Usage: train-ai=n", "Content-Usage: / train-ai=n"))
    assert rules.usage("/test", user_agent="x")["train-ai"] is False
    assert rules.usage("/ai-ok/test", user_agent="x")["train-ai"] is True
    assert rules.usage("/never/test", user_agent="x")["train-ai"] is None


def test_attach_1_2_example_robots_txt() -> None:
    """attach §1.2 "Examples": `User-Agent: *`, `Allow: /`, `Content-Usage: / train-ai=n`."""
    u = parse("User-Agent: *\nAllow: /\nContent-Usage: / train-ai=n\n").usage("/any")
    assert (u.crawl, u["train-ai"], u["search"]) == (True, False, None)


# -- attach §3.2: splitting the rule value ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "path", "pref"),
    [
        ("train-ai=n", None, "train-ai=n"),  # no leading "/": no path
        ("/ai-ok/ train-ai=y", "/ai-ok/", "train-ai=y"),  # path ends before the first SP
        ("/a\ttrain-ai=y", "/a", "train-ai=y"),  # ... or HTAB
        ("/a  \t train-ai=y, search=n", "/a", "train-ai=y, search=n"),
        ("/only-a-path", "/only-a-path", ""),  # no preference: nothing stated
        ("*.pdf train-ai=n", None, "*.pdf train-ai=n"),  # does not start with "/"
    ],
)
def test_attach_3_2_split(value: str, path: str | None, pref: str) -> None:
    """attach §3.2: "The first part of the rule value is the path. It always starts with "/"
    and ends immediately before the first SP or HTAB character.\""""
    assert aipref.split_content_usage(value) == (path, pref)


def test_attach_3_2_hash_ends_the_value() -> None:
    """attach §3.2: the rule value runs "up to either the first CR, LF, or octothorpe"."""
    u = parse("User-agent: *\nContent-Usage: train-ai=n # search=n\n").usage("/")
    assert u["train-ai"] is False
    assert u["search"] is None


def test_attach_3_2_label_is_case_insensitive_and_spaced() -> None:
    """attach §3.2: SP and HTAB are ignored around the label and the colon; REP keys are
    case-insensitive (RFC 9309 2.2)."""
    u = parse("User-agent: *\n  content-USAGE \t:  train-ai=n\n").usage("/x")
    assert u["train-ai"] is False


# -- vocab: the preference --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pref", "train_ai", "search"),
    [
        ("train-ai=y, search=n", True, False),  # vocab "Exemplary Serialization Format"
        ("train-ai=n", False, None),  # an absent key is unknown ("Processing Algorithm")
        ("train-ai=yes", None, None),  # a token other than y/n is unknown, not an error
        ('train-ai="n"', None, None),  # a String, not a Token: unknown
        ("train-ai", None, None),  # a bare key is the Boolean true: unknown
        ("train-ai=?0", None, None),  # a Boolean: unknown
        ("train-ai=1", None, None),  # an Integer: unknown
        ("train-ai=n;why=x", False, None),  # parameters MUST be ignored ("Syntax Extensions")
        ("foo=n, train-ai=y", True, None),  # unknown keys MUST be ignored
        ("train-ai=n, train-ai=y", True, None),  # the last duplicate wins
        # vocab "Multiple Preferences": this one "results in all preferences being unknown"
        ('train-ai=y, train-ai, search=n, search="n"', None, None),
        # vocab "Preference Parameters": "carries no parameters, and a preference to allow"
        ("train-ai;allow=n, train-ai=y", True, None),
        # vocab "Preference Parameters": parameters on an unknown preference (here also a
        # trailing ";" that does not parse: unknown either way)
        ('train-ai;has;parameters="?";', None, None),
        ('train-ai;has;parameters="?"', None, None),
        ("Train-ai=n", None, None),  # an uppercase key fails the parse: all unknown
        ("train-ai=n, Search=n", None, None),  # one bad key voids the whole statement
        ("train-ai=n,", None, None),  # trailing comma: parse failure, all unknown
        ("train-ai=n search=n", None, None),  # missing comma: parse failure
        ("", None, None),  # empty: an empty dictionary, nothing stated
    ],
)
def test_vocab_processing(pref: str, train_ai: bool | None, search: bool | None) -> None:
    s = aipref.parse_content_usage(pref)
    assert s.get("train-ai") is train_ai
    assert s.get("search") is search
    u = parse(f"User-agent: *\nContent-Usage: {pref}\n").usage("/page")
    assert (u["train-ai"], u["search"]) == (train_ai, search)


def test_vocab_parse_failure_sets_error_and_states_nothing() -> None:
    """vocab "Multiple Preferences": "If the parsing of the Dictionary fails, preferences are
    unknown. This includes where keys include uppercase characters"."""
    s = aipref.parse_content_usage("Train-AI=n, search=n")
    assert s.error
    assert s.prefs == ()


def test_vocab_superseded_labels_are_ignored_keys() -> None:
    """vocab -07 labels are train-ai and search; -01 `ai=n` (nuxt-modules/robots#226) is an
    unknown key today, ignored, kept for the linter."""
    s = aipref.parse_content_usage("/restricted/ ai=n train-ai=n".replace(" train", ", train"))
    assert s.values == {"train-ai": False}
    assert s.ignored == ("ai",)


def test_vocab_non_ascii_bytes_fail_the_parse() -> None:
    """vocab "Text Encoding": the syntax is ASCII; other bytes fail the parse: all unknown."""
    u = parse("User-agent: *\nContent-Usage: train-ai=n, s\u00e9arch=n\n".encode()).usage("/")
    assert u["train-ai"] is None


# -- attach §3.1: semantics -------------------------------------------------------------------


def test_attach_3_1_group_selection_own_group_hides_global() -> None:
    """attach §3.1 + RFC 9309 2.2.1: a crawler with its own group does not see `*`'s rules."""
    rules = parse("User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n\n"
                  "User-agent: GPTBot\nAllow: /\n")
    assert rules.usage("/x", user_agent="GPTBot")["train-ai"] is None
    assert rules.usage("/x", user_agent="OtherBot")["train-ai"] is False


def test_attach_3_content_usage_is_a_rule_that_ends_a_group() -> None:
    """attach §3: "rule =/ content-usage": a user-agent line after it starts a new group
    (RFC 9309 2.1: a group is user-agent lines followed by rules). The registry's one entry
    (robotrules._directives: content-usage ends agents in rfc9309) is all this takes; Google's
    parser does not know the field, so the google dialect keeps one group."""
    body = "User-agent: *\nContent-Usage: train-ai=n\nUser-agent: GPTBot\nAllow: /\n"
    rules = parse(body)
    assert rules.usage("/x", user_agent="GPTBot")["train-ai"] is None
    assert len(rules.groups) == 2
    assert len(parse(body, "google").groups) == 1


def test_attach_3_1_same_token_groups_merge() -> None:
    """RFC 9309 2.2.1: groups naming the same token are combined; so are their rules."""
    rules = parse("User-agent: a\nContent-Usage: train-ai=y\n\nUser-agent: b\nDisallow: /x\n\n"
                  "User-agent: a\nContent-Usage: search=n\n")
    u = rules.usage("/p", user_agent="a")
    assert (u["train-ai"], u["search"], u.lines) == (True, False, (2, 8))


def test_attach_3_1_full_user_agent_header_selects_group() -> None:
    """A full User-Agent header selects the group of its product token, as is_allowed does."""
    rules = parse("User-agent: GPTBot\nContent-Usage: train-ai=n\n")
    ua = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)"
    assert rules.usage("/", user_agent="GPTBot/1.2")["train-ai"] is False
    assert rules.usage("/", user_agent=ua).crawl == rules.is_allowed("/", user_agent=ua)


def test_attach_3_1_disallowed_url_has_no_preferences() -> None:
    """attach §3.1: "no preferences are implied for resources that are disallowed"."""
    rules = parse("User-agent: *\nDisallow: /private/\nContent-Usage: /private/ train-ai=y\n"
                  "Content-Usage: search=y\n")
    u = rules.usage("/private/a", user_agent="x")
    assert u.crawl is False
    assert (u["train-ai"], u["search"], u.lines, u.statements) == (None, None, (), ())
    assert rules.usage("/public", user_agent="x")["search"] is True


def test_attach_3_1_longest_path_decides() -> None:
    """attach §3.1: Content-Usage uses "the same path prefix matching rules as defined for
    Allow and Disallow" (longest match, RFC 9309 2.2.2)."""
    rules = parse("User-agent: *\nContent-Usage: /a/ train-ai=n\nContent-Usage: /a/b/ train-ai=y"
                  "\nContent-Usage: /a/b/c train-ai=n\n")
    assert rules.usage("/a/x", user_agent="x")["train-ai"] is False
    assert rules.usage("/a/b/x", user_agent="x")["train-ai"] is True
    assert rules.usage("/a/b/c", user_agent="x")["train-ai"] is False
    assert rules.usage("/z", user_agent="x")["train-ai"] is None  # nothing matches


def test_attach_3_1_longest_path_decides_the_whole_preference() -> None:
    """attach §3.1: the longest matching rule decides; a category it leaves out is unknown
    even if a shorter rule states it (vocab "Applying Statements of Preference")."""
    rules = parse("User-agent: *\nContent-Usage: search=n, train-ai=n\n"
                  "Content-Usage: /open/ train-ai=y\n")
    u = rules.usage("/open/x", user_agent="x")
    assert (u["train-ai"], u["search"]) == (True, None)


def test_attach_3_1_order_carries_no_meaning() -> None:
    """attach §3.1: "The ordering of rules in a group carries no semantics"."""
    a = parse("User-agent: *\nContent-Usage: /x/ train-ai=y\nContent-Usage: train-ai=n\n")
    b = parse("User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /x/ train-ai=y\n")
    for path in ("/x/1", "/y"):
        assert a.usage(path)["train-ai"] is b.usage(path)["train-ai"]


def test_attach_3_1_identical_paths_combine_most_restrictive() -> None:
    """attach §3.1: identical paths with conflicting preferences "apply separately according
    to" vocab "Combining Preferences" (any n wins), "unlike the Allow/Disallow rules"."""
    rules = parse("User-agent: *\nAllow: /p\nDisallow: /p\n"
                  "Content-Usage: /p train-ai=y, search=y\nContent-Usage: /p train-ai=n\n")
    u = rules.usage("/p/1", user_agent="x")
    assert u.crawl is True  # the allow-wins tie of RFC 9309 2.2.2
    assert (u["train-ai"], u["search"]) == (False, True)
    assert u.lines == (4, 5)
    assert [s.line for s in u.statements] == [4, 5]


def test_attach_3_1_identical_paths_with_a_failed_parse() -> None:
    """A statement that fails to parse states nothing; the other one at the same path decides
    (vocab "Combining Preferences": unknown never beats allow)."""
    rules = parse("User-agent: *\nContent-Usage: train-ai=y\nContent-Usage: Train-ai=n\n")
    assert rules.usage("/")["train-ai"] is True


def test_attach_3_1_path_patterns_use_the_core_matcher() -> None:
    """attach §3.1: same matching as Allow/Disallow: `*` and a final `$` (RFC 9309 2.2.3)."""
    rules = parse("User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n"
                  "Content-Usage: /docs/*/draft train-ai=y\n")
    assert rules.usage("/a/b.pdf")["train-ai"] is False
    assert rules.usage("/a/b.pdf?x=1")["train-ai"] is None
    assert rules.usage("/docs/v1/draft/x")["train-ai"] is True


def test_attach_3_1_percent_encoding_as_allow_disallow() -> None:
    """attach §3.1: "Paths specified for Content-Usage rules use the same percent-encoding
    rules as used for Allow/Disallow rules" (RFC 9309 2.2.2: %-normalised comparison)."""
    rules = parse("User-agent: *\nContent-Usage: /caf%C3%A9/ train-ai=n\n"
                  "Content-Usage: /a%20b train-ai=y\n")
    assert rules.usage("https://e.com/caf\u00e9/menu")["train-ai"] is False
    assert rules.usage("https://e.com/a%20b")["train-ai"] is True


def test_attach_3_1_prefers_longer_path_over_path_less_rule() -> None:
    """attach §3.4: a rule without a path matches every path at length 0."""
    rules = parse("User-agent: *\nContent-Usage: train-ai=y\nContent-Usage: / train-ai=n\n")
    u = rules.usage("/x")
    assert u["train-ai"] is False
    assert u.lines == (3,)


@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
def test_usage_follows_the_files_dialect(dialect: str) -> None:
    """Path matching reuses the dialect's own normalisation: crawl is what is_allowed says."""
    body = "User-agent: *\nDisallow: /a%2Fb\nContent-Usage: train-ai=n\n"
    rules = parse(body, dialect)  # type: ignore[arg-type]
    for url in ("/a%2Fb", "/a/b", "/c"):
        u = rules.usage(url, user_agent="bot")
        assert u.crawl == rules.is_allowed(url, user_agent="bot")
        assert u["train-ai"] is (False if u.crawl else None)


def test_robots_txt_itself_is_always_crawlable() -> None:
    """RFC 9309 2.2.2: /robots.txt is always allowed, so preferences can apply to it."""
    rules = parse("User-agent: *\nDisallow: /\nContent-Usage: train-ai=n\n")
    assert rules.usage("/robots.txt")["train-ai"] is False


def test_no_group_no_preferences() -> None:
    """RFC 9309 2.2.1: no group applies: crawl allowed, nothing stated."""
    u = parse("User-agent: a\nContent-Usage: train-ai=n\n").usage("/", user_agent="b")
    assert u.crawl is True
    assert u["train-ai"] is None
    assert u.statements == ()


def test_statements_carry_source_line_and_raw_text() -> None:
    u = parse("User-agent: *\nContent-Usage: /ai-ok/ train-ai=y\n").usage("/ai-ok/1")
    (s,) = u.statements
    assert (s.source, s.line, s.raw, s.path) == ("content-usage", 2, "/ai-ok/ train-ai=y",
                                                 "/ai-ok/")
    assert s.to_dict()["values"] == {"train-ai": True}


def test_usage_is_exported_and_serialisable() -> None:
    u = parse(WORKED).usage("/test")
    assert isinstance(u, robotrules.Usage)
    d = u.to_dict()
    assert d["categories"] == {"train-ai": False, "search": None, "ai-train": None,
                               "ai-input": None}
    assert d["lines"] == [4]


def test_bad_scope_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="content_signal_scope"):
        parse("").usage("/", content_signal_scope="everywhere")  # type: ignore[arg-type]


def test_old_file_without_preferences() -> None:
    u = parse("User-agent: *\nDisallow: /x\n").usage("/")
    assert (u.crawl, u["train-ai"], u.lines, u.statements) == (True, None, (), ())


def test_describe() -> None:
    rules = parse(WORKED)
    assert aipref.describe(rules.usage("/test")) == "usage preferences train-ai=n (line 4)"
    assert "may not be fetched" in aipref.describe(rules.usage("/never/x"))


def test_explain_detail_for_the_lead_to_append() -> None:
    """The sentence explain() can add: the preferences that apply to an allowed URL."""
    rules = parse(WORKED)
    v = rules.explain("/ai-ok/1", user_agent="x")
    assert aipref.explain_detail(rules, v) == "usage preferences train-ai=y (line 5)"
    assert aipref.explain_detail(rules, rules.explain("/never/1")) == ""
    assert aipref.explain_detail(parse("User-agent: *\nAllow: /\n"), rules.explain("/")) == ""
    assert aipref.usage_of_verdict(rules, v) == rules.usage("/ai-ok/1", user_agent="x")


@pytest.mark.parametrize(("dialect", "groups", "gptbot"), [("rfc9309", 2, None),
                                                             ("google", 1, False),
                                                             ("1994", 1, False)])
def test_content_usage_ends_a_group_only_in_rfc9309(dialect: str, groups: int,
                                                     gptbot: bool | None) -> None:
    """attach-05 §3: `rule =/ content-usage`, so in RFC 9309 a user-agent line after it starts
    a new group; Google's parser (robots.cc: a known, unused tag) and 1994 do not end a group
    there (docs/dialects.md, docs/ai-preferences.md)."""
    rules = parse("User-agent: *\nContent-Usage: train-ai=n\nUser-agent: GPTBot\nAllow: /\n",
                  dialect)  # type: ignore[arg-type]
    assert len(rules.groups) == groups
    assert rules.usage("/", user_agent="GPTBot")["train-ai"] is gptbot
