"""AI usage preferences: Content-Usage, Content-Signal, policy-token groups, TDMRep, RSL.

Every signal becomes a :class:`Statement` (a small mapping of categories to ``True`` /
``False`` / ``None``) and everything downstream is one operation, :func:`combine`, the AIPREF
"most restrictive" rule. The package is split by job; this face re-exports every public name
(``import robotrules.aipref`` keeps working as before the split):

=====================  ========================================================================
module                 job
=====================  ========================================================================
``_values``            :class:`Statement`, :func:`combine` (the values)
``vocabulary``         the vocabulary versions as one table (:data:`VOCABULARIES`,
                       ``vocab-07`` default, ``vocab-08`` selectable; :func:`usage_keys`)
``_paths``             preference paths read exactly as Allow/Disallow patterns (attach-05 3.1)
``content_usage``      the Content-Usage rule and HTTP field (attach-05, vocab-07/-08)
``content_signal``     Cloudflare's Content-Signal, ``use=``, its mapping to AIPREF
``policy_tokens``      groups keyed by a policy token (draft-kelley-...-signal-00)
``tdmrep``             W3C TDMRep ``tdmrep.json``
``headers``            response headers: Content-Usage, tdm-*, ``Link: rel="license"``
``rsl``                RSL 1.0 licence documents (parsed with defusedxml)
``rsl_fetch``          fetching RSL documents (the package's only I/O; imported on use)
``usage``              :class:`Usage` for one URL, :func:`summarize_signals` for a file
``findings``           the linter's AI findings (L031-L040, L042-L047)
=====================  ========================================================================

Sans-I/O apart from ``rsl_fetch``: :func:`parse_tdmrep`, :func:`parse_rsl` take bytes,
:func:`from_headers` takes response headers, :meth:`Usage.combined_with` folds such statements
into a robots.txt answer. See docs/ai-preferences.md for every rule and its source.
"""

from __future__ import annotations

from ._values import Scope, Statement, Tri, combine
from .content_signal import parse_content_signal, to_aipref
from .content_usage import (
    parse_content_usage,
    parse_content_usage_header,
    parse_preference,
    split_content_usage,
)
from .findings import lint_findings, preference_lines, without_core_noise
from .headers import from_headers, license_links
from .policy_tokens import (
    POLICY_TOKENS,
    is_policy_token,
    parse_policy_tokens,
    policy_groups,
    policy_statements,
)
from .rsl import (
    RSL_MEDIA_TYPE,
    RSL_USAGES,
    RslContent,
    RslDocument,
    RslLicense,
    RslPayment,
    RslTerms,
    license_urls,
    parse_rsl,
)
from .tdmrep import TdmRep, TdmRule, parse_tdmrep
from .usage import (
    SignalSummary,
    Usage,
    describe,
    explain_detail,
    records,
    summarize_signals,
    usage,
    usage_of_verdict,
)
from .vocabulary import (
    AIPREF_LABELS,
    CONTENT_SIGNAL_KEYS,
    CONTENT_SIGNAL_OTHER,
    DEFAULT_VOCABULARY,
    SUPERSEDED_LABELS,
    TDM,
    USE_LEVELS,
    VOCABULARIES,
    Vocabulary,
    usage_keys,
    vocabulary,
)

__all__ = [
    "AIPREF_LABELS",
    "CONTENT_SIGNAL_KEYS",
    "CONTENT_SIGNAL_OTHER",
    "DEFAULT_VOCABULARY",
    "POLICY_TOKENS",
    "RSL_MEDIA_TYPE",
    "RSL_USAGES",
    "SUPERSEDED_LABELS",
    "TDM",
    "USE_LEVELS",
    "VOCABULARIES",
    "RslContent",
    "RslDocument",
    "RslLicense",
    "RslPayment",
    "RslTerms",
    "Scope",
    "SignalSummary",
    "Statement",
    "TdmRep",
    "TdmRule",
    "Tri",
    "Usage",
    "Vocabulary",
    "combine",
    "describe",
    "explain_detail",
    "from_headers",
    "is_policy_token",
    "license_links",
    "license_urls",
    "lint_findings",
    "parse_content_signal",
    "parse_content_usage",
    "parse_content_usage_header",
    "parse_policy_tokens",
    "parse_preference",
    "parse_rsl",
    "parse_tdmrep",
    "policy_groups",
    "policy_statements",
    "preference_lines",
    "records",
    "split_content_usage",
    "summarize_signals",
    "to_aipref",
    "usage",
    "usage_keys",
    "usage_of_verdict",
    "vocabulary",
    "without_core_noise",
]
