"""robotrules.aipref.vocabulary: the vocabulary versions and what changes between them.

vocab-07 rests on draft-ietf-aipref-vocab-07 ("Usage Category Labels": train-ai "AI Model
Training", search "Search"; "Search" includes processing inside the search application, model
training included). vocab-08 rests on its
implementers' descriptions (AI-PREFERENCES.md 7.1): a new ``ai-use`` category, "AI Training"
limited to generative models, ``search`` overriding the other categories for qualifying
search use. Legacy labels stay ignored ("Processing Algorithm": unknown keys are ignored).
"""

from __future__ import annotations

import pytest

from robotrules import aipref, parse
from robotrules.aipref import VOCABULARIES, usage_keys

BODY = "User-agent: *\nContent-Usage: train-ai=n, search=y, ai-use=n\n"


def test_vocab_07_is_the_default_and_ignores_ai_use() -> None:
    """attach-05 cites vocab-07; `ai-use` was a -02 label removed since (ignored)."""
    u = parse(BODY).usage("/x")
    assert u.vocabulary == "vocab-07"
    assert (u["train-ai"], u["search"], u["ai-use"]) == (False, True, None)
    assert set(u.to_dict()["categories"]) == {"train-ai", "search", "ai-train", "ai-input"}  # type: ignore[arg-type]


def test_vocab_08_reads_ai_use() -> None:
    """vocab-08 as described: a new category `ai-use`."""
    u = parse(BODY).usage("/x", vocabulary="vocab-08")
    assert (u["train-ai"], u["search"], u["ai-use"]) == (False, True, False)
    assert "ai-use" in u.to_dict()["categories"]  # type: ignore[operator]


def test_unknown_vocabulary_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="vocab-07, vocab-08"):
        parse(BODY).usage("/x", vocabulary="vocab-09")


def test_the_table_says_which_rows_rest_on_the_draft() -> None:
    assert VOCABULARIES["vocab-07"].source == "primary"
    assert VOCABULARIES["vocab-08"].source == "secondary"
    assert VOCABULARIES["vocab-07"].titles["train-ai"] == "AI Model Training"
    assert VOCABULARIES["vocab-08"].titles["train-ai"] == "AI Training"
    assert "generate synthetic content" in VOCABULARIES["vocab-07"].train_ai_scope
    assert "generative" in VOCABULARIES["vocab-08"].train_ai_scope


def test_usage_keys_are_one_list_per_version() -> None:
    """The category keys a usage answer (and the kernel's usage_many arrays) reports."""
    assert usage_keys("vocab-07") == ("train-ai", "search", "ai-train", "ai-input")
    assert usage_keys("vocab-08") == ("train-ai", "search", "ai-use", "ai-train", "ai-input")


def test_legacy_labels_stay_ignored_in_both() -> None:
    for v in VOCABULARIES:
        u = parse("User-agent: *\nContent-Usage: ai=n, genai=n, train-genai=n\n").usage(
            "/x", vocabulary=v)
        assert u.categories == {}, v


@pytest.mark.parametrize("vocab", ["vocab-07", "vocab-08"])
def test_search_decides_for_qualifying_search_use(vocab: str) -> None:
    """vocab-07 "Search": "A preference to allow this category of use includes allowing any
    processing internal to the application ... That includes the training of AI models";
    vocab-08 (as described): `search` overrides the other categories for qualifying search
    use. Outside search use the categories stay independent ("Combining Preferences" is per
    category)."""
    u = parse("User-agent: *\nContent-Usage: train-ai=n, search=y\n").usage("/", vocabulary=vocab)
    assert u.decide("train-ai", search_use=True) is True
    assert u.decide("train-ai") is False
    quiet = parse("User-agent: *\nContent-Usage: train-ai=n\n").usage("/", vocabulary=vocab)
    assert quiet.decide("train-ai", search_use=True) is None  # search unknown: unknown


def test_parse_preference_per_version() -> None:
    assert aipref.parse_preference("ai-use=y", "vocab-07")[:2] == ((), ("ai-use",))
    assert aipref.parse_preference("ai-use=y", "vocab-08")[:2] == ((("ai-use", True),), ())
