# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, auto_pickle=False
# cython: initializedcheck=False, nonecheck=False, infer_types=False
"""The native kernels (Cython): the native peer, :class:`Doc`, reading a file in C.

:class:`Doc` has the surface :class:`robotrules._peer.Peer` declares, as the pure peer
(:class:`robotrules._pure.PurePeer`) has it; the selector (:mod:`robotrules._peers`) gives it
the ``google`` and ``rfc9309`` files up to ``MAX_BODY`` bytes, and never calls into it for
others. It is a second implementation of the pure reading, held equal to it by
``tests/core/test_peers.py``, the differential tests (``tests/core/test_native.py``, Google's
parser in ``test_differential.py``) and ``tools/fuzz_native.py``. Every piece of robots.txt
knowledge it needs comes from :mod:`robotrules._tables`, which derives each table from the
rule's pure home, never written here again:

- field names: :func:`robotrules._tokenize.key_class` (the directive registry), asked once
  per distinct key and remembered in a small C table;
- which kinds open a group, are rules or end a run of user-agent lines: the registry and
  the dialect specs (:mod:`robotrules._directives`, :mod:`robotrules._dialects`);
- agent tokens: :func:`robotrules._token.line_token_bytes`, and a query's key: an ASCII
  agent without :data:`robotrules._token.HEADER_MARK` is its own token, lower-cased here;
  :func:`~robotrules._token.query_key` is asked of any other (once per distinct agent);
- which bytes keep a rule a plain prefix: the dialect spec's ``not_plain``, and Google's
  companion trigger (:func:`robotrules._compile.may_have_companion`); every other value is
  escaped here by the normaliser's tables (:func:`robotrules._tables.pattern_bytes`,
  :func:`~robotrules._tables.pattern_escapes`), and only Google's companion rule is read by
  :func:`robotrules._compile.native_pattern` (the pure ``new_pattern``);
- the byte-order mark a body opens with: :func:`robotrules._tokenize.bom_length`;
- URL paths: Google's ``GetPathParamsQuery`` (ported here, as :func:`robotrules._url.path_of`
  does it), and RFC 9309 normalisation here by the tables read off
  :func:`robotrules._url.rfc_normalize` (the bytes it keeps, the escapes it decodes, the
  bytes it writes as escapes); :func:`robotrules._url.rfc_path` only for a URL holding a
  lone surrogate.

The source is split by job into the parts included below (``_kernel/*.pxi``); what they share
is declared in ``_native.pxd``, the map.

What a parse builds (:class:`Doc`), all in C arrays (``PyMem``, so tracemalloc sees them):
the rules of each group (offsets into the file's bytes, which are kept, not copied) and its
user-agent lines; the groups' agent tokens (sorted, lower-cased) and each distinct group
selection are made from those on the first query (a file parsed and never asked pays for
neither). A selection's matcher is compiled on its first query (a file is rarely asked
about every group), in C, so that first query costs microseconds; the rule lists go once
every selection is compiled.
The directive stream is not kept: the peer's slower surface (``directives``, ``group_index``)
makes it on first use, with :func:`tokenize`.

A matcher holds its rules as 16-byte entries, best first (the key order of
:mod:`robotrules._match`: the longest pattern, then allow, then the earliest line). A small
one is scanned; a larger one files its rules under sorted literal prefixes with parent links
(one bisection and a short walk per query), and rules that could match anywhere (``/*x``)
under their rarest run of 4, 2 or 1 literal bytes (:c:type:`LitIndex`): the same theory as
:mod:`robotrules._match`, with the same bounds.
"""

cimport cython

from array import array

from . import _compile, _tables

# the parts, by job (their shared declarations: _native.pxd)
include "_kernel/tables.pxi"
include "_kernel/memory.pxi"
include "_kernel/tokenize.pxi"
include "_kernel/patterns.pxi"
include "_kernel/build.pxi"
include "_kernel/match.pxi"
include "_kernel/urls.pxi"
include "_kernel/doc.pxi"
include "_kernel/batch.pxi"
include "_kernel/facts.pxi"
include "_kernel/arrow.pxi"
