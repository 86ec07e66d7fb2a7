"""robotrules.aipref.usage: the answer for one URL (:class:`Usage`) and
:func:`summarize_signals`, the census' view of which usage signals a file carries.

Evaluation rules are tested against their sentences in test_content_usage.py,
test_content_signal.py and test_vectors.py; this file covers the summary and the answer's
shape."""

from __future__ import annotations

import pytest

from robotrules import aipref, parse

BODY = """\
License: https://x.com/license.xml
LLM-Policy: /llms.txt
User-agent: *
Allow: /
Content-Usage: train-ai=n, search=y
Content-Usage: /open/ train-ai=y
Content-Signal: search=yes, ai-train=no, use=reference

User-agent: GPTBot
Content-Usage: train-ai=maybe
"""


def test_summary_of_a_file() -> None:
    s = aipref.summarize_signals(parse(BODY))
    assert s.content_usage == (5, 6, 10)
    assert s.content_signal == (7,)
    assert s.licenses == ("https://x.com/license.xml",)
    assert s.llm_policy == ("/llms.txt",)
    assert s.use == ("reference",)
    assert s.policy_groups == ()
    assert dict(s.categories["train-ai"]) == {"y": 1, "n": 1, "?": 1}
    assert dict(s.categories["search"]) == {"y": 2, "n": 0, "?": 0}  # AIPREF and Content-Signal
    assert dict(s.categories["ai-train"]) == {"y": 0, "n": 1, "?": 0}
    assert s.any
    assert s.to_dict()["licenses"] == ["https://x.com/license.xml"]


def test_summary_keys_follow_the_vocabulary() -> None:
    s7 = aipref.summarize_signals(parse(BODY))
    s8 = aipref.summarize_signals(parse(BODY), vocabulary="vocab-08")
    assert tuple(s7.categories)[:4] == aipref.usage_keys("vocab-07")
    assert tuple(s8.categories)[:5] == aipref.usage_keys("vocab-08")


def test_summary_of_a_plain_file() -> None:
    s = aipref.summarize_signals(parse("User-agent: *\nDisallow: /x\n"))
    assert not s.any
    assert all(sum(v.values()) == 0 for v in s.categories.values())


def test_usage_to_dict_shape() -> None:
    d = parse(BODY).usage("https://x.com/a").to_dict()
    assert d["vocabulary"] == "vocab-07"
    assert d["licenses"] == ["https://x.com/license.xml"]
    assert d["use"] == "reference"
    assert d["policy_tokens"] == []
    assert d["content_signal_as_aipref"] == {"search": True, "train-ai": False}
    assert list(d["categories"])[:4] == ["train-ai", "search", "ai-train", "ai-input"]  # type: ignore[call-overload]


# Which lines are Content-Usage lines is the tokenizer's key classification, read through
# Record.directive (issue 21; robotrules._directives.classify_key: an extension's key is matched
# without case, "_" and " " read as "-"), the same in every dialect; "ContentUsage" is no key
# the registry has (draft-ietf-aipref-attach names the field "Content-Usage").

@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
@pytest.mark.parametrize(("key", "read"), [
    ("Content-Usage", True), ("Content_Usage", True), ("content usage", True),
    ("CONTENT-USAGE", True), ("ContentUsage", False)])
def test_content_usage_key_spellings(dialect: str, key: str, read: bool) -> None:
    rules = parse(f"User-agent: *\n{key}: train-ai=n\n", dialect)  # type: ignore[arg-type]
    u = rules.usage("https://e.com/a")
    assert (u["train-ai"], u.lines) == ((False, (2,)) if read else (None, ()))
