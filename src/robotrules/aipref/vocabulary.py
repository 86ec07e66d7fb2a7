"""The AIPREF vocabulary versions robotrules can evaluate against, as one table.

Every difference between vocabulary versions lives in :data:`VOCABULARIES` and nowhere else:
the category labels a preference is read for, the superseded labels that are ignored (and
linted), the ``search`` override, the scope of ``train-ai``, how Content-Signal keys map to the
version's categories, and the list of category keys a usage answer reports
(:attr:`Vocabulary.usage_keys`: the one list the kernel's ``usage_many`` arrays follow).

``vocab-07`` (draft-ietf-aipref-vocab-07, the version attach-05 cites) is the default and rests
on the draft text (tag ``draft-ietf-aipref-vocab-07`` of github.com/ietf-wg-aipref/drafts).
``vocab-08`` (14 September 2026) could not be read beyond its first page in the stored copies;
its entries follow the implementers' descriptions collected in AI-PREFERENCES.md 7.1 and are
marked ``source="secondary"`` (see docs/ai-preferences.md, "Vocabulary versions").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

__all__ = [
    "AIPREF_LABELS",
    "CONTENT_SIGNAL_KEYS",
    "CONTENT_SIGNAL_OTHER",
    "DEFAULT_VOCABULARY",
    "SIGNAL_KEY_LABELS",
    "SUPERSEDED_LABELS",
    "TDM",
    "USE_LEVELS",
    "VOCABULARIES",
    "Vocabulary",
    "VocabularyName",
    "usage_keys",
    "vocabulary",
]

VocabularyName = Literal["vocab-07", "vocab-08"]
DEFAULT_VOCABULARY: Final[VocabularyName] = "vocab-07"

#: Content-Signal keys with yes/no values (Cloudflare's Content Signals Policy).
CONTENT_SIGNAL_KEYS: Final = ("search", "ai-input", "ai-train")
#: Content-Signal keys written in a Content-Usage line, and the AIPREF label meant (None:
#: AIPREF has no such category): what lint's L046 suggests instead.
SIGNAL_KEY_LABELS: Final[dict[str, str | None]] = {"ai-train": "train-ai", "ai-input": None,
                                                   "use": None}
#: Content-Signal keys with other values (2026: ``use=immediate|reference|full``).
CONTENT_SIGNAL_OTHER: Final = ("use",)
#: Content-Signal ``use`` levels, least permissive first. Cloudflare's crawl endpoint orders
#: ``reference`` before ``full`` ("from least to most permissive"); where ``immediate`` stands
#: is not in any stored text: robotrules puts it first (an assumption, documented as such).
USE_LEVELS: Final = ("immediate", "reference", "full")
TDM: Final = "tdm"  # the category TDMRep statements fill

_SUPERSEDED_07: Final[Mapping[str, str | None]] = MappingProxyType({
    "ai": "train-ai",  # -01 "AI Training"
    "genai": "train-ai",  # -01 "Generative AI Training"
    "train-genai": "train-ai",  # -02/-03
    "tdm": None,  # -01 "Text and Data Mining": removed
    "inference": None,  # -01: removed
    "all": None,  # -02 "Automated Processing": removed in -05
    "bots": None,  # -03/-04 "Automated Processing": removed in -05
    "ai-use": None,  # -02 "AI Use": removed (back as a category in -08)
    "ai-output": None,  # -04 "AI Output": removed in -05
})


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """One AIPREF vocabulary version (a row of the table in docs/ai-preferences.md).

    ``labels``: the category labels a preference is read for (case-sensitive); ``titles``
    their names in the draft; ``superseded``: labels of earlier versions, ignored, with the
    label to use instead (``None``: removed); ``search_overrides``: whether the ``search``
    preference decides for a qualifying search use whatever the other categories say (vocab-07
    through its definition of Search, which includes processing internal to the search
    application, model training included; vocab-08 as a stated override, as described);
    ``train_ai_scope``: what
    ``train-ai`` covers; ``from_content_signal``: the Content-Signal key each category is the
    nearest counterpart of (robotrules' own table); ``usage_keys``: every category key a usage
    answer reports for this version (AIPREF labels, then Content-Signal's keys);
    ``source``: ``primary`` (read from the draft) or ``secondary`` (implementers' descriptions).
    """

    name: VocabularyName
    labels: tuple[str, ...]
    titles: Mapping[str, str]
    superseded: Mapping[str, str | None]
    search_overrides: bool
    train_ai_scope: str
    from_content_signal: Mapping[str, str | None]
    source: Literal["primary", "secondary"]
    cite: str

    @property
    def usage_keys(self) -> tuple[str, ...]:
        """The category keys of a usage answer, in order (one array each in ``usage_many``):
        the version's labels, then Content-Signal's ``ai-train`` and ``ai-input`` (its
        ``search`` is AIPREF's ``search``, combined)."""
        return self.labels + tuple(k for k in ("ai-train", "ai-input") if k not in self.labels)


VOCABULARIES: Final[Mapping[str, Vocabulary]] = MappingProxyType({
    "vocab-07": Vocabulary(
        name="vocab-07",
        labels=("train-ai", "search"),
        titles=MappingProxyType({"train-ai": "AI Model Training", "search": "Search"}),
        superseded=_SUPERSEDED_07,
        # vocab-07 "Search": "A preference to allow this category of use includes allowing any
        # processing internal to the application ... That includes the training of AI models"
        search_overrides=True,
        train_ai_scope=("modifying the learned parameters of an AI model used to generate "
                        "synthetic content"),
        from_content_signal=MappingProxyType(
            {"search": "search", "ai-train": "train-ai", "ai-input": None, "use": None}),
        source="primary",
        cite="draft-ietf-aipref-vocab-07 'Usage Category Labels'",
    ),
    "vocab-08": Vocabulary(
        name="vocab-08",
        labels=("train-ai", "search", "ai-use"),
        titles=MappingProxyType({"train-ai": "AI Training", "search": "Search",
                                 "ai-use": "AI Use"}),
        superseded=MappingProxyType({k: v for k, v in _SUPERSEDED_07.items() if k != "ai-use"}),
        search_overrides=True,
        train_ai_scope="training generative AI models ('AI Training')",
        from_content_signal=MappingProxyType(
            {"search": "search", "ai-train": "train-ai", "ai-input": "ai-use", "use": None}),
        source="secondary",
        cite="draft-ietf-aipref-vocab-08 as its implementers describe it (AI-PREFERENCES.md 7.1)",
    ),
})

#: vocab-07's labels and superseded labels (the names of robotrules 0.x, kept).
AIPREF_LABELS: Final = VOCABULARIES[DEFAULT_VOCABULARY].labels
SUPERSEDED_LABELS: Final = VOCABULARIES[DEFAULT_VOCABULARY].superseded


def vocabulary(name: str) -> Vocabulary:
    """The :class:`Vocabulary` called ``name``; ``ValueError`` naming the known ones if none."""
    v = VOCABULARIES.get(name)
    if v is None:
        raise ValueError(f"vocabulary must be one of {', '.join(VOCABULARIES)}, not {name!r}")
    return v


def usage_keys(name: str = DEFAULT_VOCABULARY) -> tuple[str, ...]:
    """The category keys of a usage answer under vocabulary ``name`` (see
    :attr:`Vocabulary.usage_keys`)."""
    return vocabulary(name).usage_keys
