"""Every table the native kernel reads, computed here from the pure homes of the rules.

The kernel (:mod:`robotrules._native`) holds no robots.txt knowledge of its own: on first use
it copies the tables below into C arrays (``_kernel/tables.pxi``), and per input it asks the
functions at the end. Each table is derived from the module that owns its rule (the
tokenizer, the directive registry, the dialect specs, the agent tokens, URL normalisation, the
pattern reading), so the kernel and the pure peer read one rule; ``tests/core/test_tables.py``
holds the tables to those homes.

A table indexed by a byte is a ``bytes`` of 256 flags (1 or 0). Dialect codes are the
positions in :data:`CODES` (the dialects' own order, as many as there are specs); the kernel
matches those in :data:`NATIVE_DIALECTS` (from the specs' fields) and only tokenizes the
others, and it branches on :func:`dialect_flags`, never on a code.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Final

from . import _compile, _dialects, _directives, _index, _match, _token, _tokenize, _url

if TYPE_CHECKING:
    from ._types import Dialect

__all__ = [
    "AGENT_HEADER_MARK",
    "BLANK",
    "CODES",
    "COMPANION_MARK",
    "INDEX_BITS",
    "KIND_SHIFT",
    "MAX_LINE",
    "MAX_PRIORITY",
    "NATIVE_DIALECTS",
    "NO_MATCH",
    "RANKS",
    "ROLE_ALLOW",
    "ROLE_BLANK",
    "ROLE_DISALLOW",
    "ROLE_ENDS",
    "ROLE_OTHER",
    "ROLE_UA",
    "UNKNOWN",
    "bom_length",
    "build_index",
    "decoded_escapes",
    "dialect_flags",
    "key_class",
    "key_forms",
    "key_heads",
    "native_pattern",
    "not_plain",
    "path_bytes_kept",
    "path_escapes",
    "pattern_bytes",
    "pattern_escapes",
    "pattern_growth",
    "query_key",
    "rfc_path",
    "roles",
    "to_text",
    "token_bytes",
    "whitespace",
]

#: The kernel's dialect codes: a dialect's code is its index in robotrules._dialects.NAMES.
CODES: Final[tuple[Dialect, ...]] = tuple(_dialects.NAMES)
#: The dialects the kernel matches: longest match over product tokens (a spec that asks for
#: the first match in file order, or matches agents by substring, is the pure peer's alone).
NATIVE_DIALECTS: Final[tuple[Dialect, ...]] = tuple(
    name for name in CODES
    if _dialects.SPECS[name].token_agents and not _dialects.SPECS[name].first_match)

# -- numbers the kernel checks its own against -------------------------------------------------
KIND_SHIFT: Final = _tokenize.KIND_SHIFT
MAX_LINE: Final = _tokenize.MAX_LINE
BLANK: Final = _tokenize.BLANK
UNKNOWN: Final = _directives.UNKNOWN
INDEX_BITS: Final = _match.INDEX_MASK.bit_length()
NO_MATCH: Final = _match.NO_MATCH
RANKS: Final = _match._RANKS
MAX_PRIORITY: Final = _match._MAX_PRIORITY
#: the batch API on Arrow buffers (decide_strings): the reason of a URL whose bytes are not
#: UTF-8, past every index of robotrules.REASONS
REASON_INVALID_TEXT: Final = 255

#: What a directive kind does in the group index (robotrules._index.build), per dialect.
ROLE_OTHER: Final = 0
ROLE_UA: Final = 1
ROLE_ALLOW: Final = 2
ROLE_DISALLOW: Final = 3
ROLE_BLANK: Final = 4
ROLE_ENDS: Final = 5

#: compat(google): an ``Allow`` whose value holds this may have a companion rule
#: (:func:`robotrules._compile.may_have_companion`, the rule's one home), so the kernel never
#: reads it as a plain prefix.
COMPANION_MARK: Final = _compile.COMPANION_MARK.encode("ascii")


def _flags(test: object) -> bytes:
    return bytes(1 if test(c) else 0 for c in range(256))  # type: ignore[operator]


def whitespace() -> bytes:
    """Per byte: white space around keys and values (robotrules._tokenize)."""
    return _flags(lambda c: chr(c) in _tokenize.WHITESPACE)


def key_forms() -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """The names a field name read as a directive is (lower-cased, "-" for "_" and " "), and
    the prefixes one read leniently starts with (:func:`robotrules._directives.key_forms`):
    a line whose key is neither is an unknown directive without a look-up."""
    names, prefixes = _directives.key_forms()
    return (tuple(sorted(n.encode("ascii") for n in names)),
            tuple(p.encode("ascii") for p in prefixes))


def key_heads() -> tuple[bytes, bytes]:
    """Which lower-cased first byte, and which first two bytes (``128 * a + b``), start a
    field name of the registry (:func:`robotrules._directives.key_starts`): a line whose key
    starts otherwise is an unknown directive without a look-up."""
    one = bytearray(128)
    two = bytearray(128 * 128)
    for head in _directives.key_starts():
        if len(head) == 1 and ord(head) < 128:
            one[ord(head)] = 1
        elif len(head) == 2 and ord(head[0]) < 128 and ord(head[1]) < 128:
            two[128 * ord(head[0]) + ord(head[1])] = 1
    return bytes(one), bytes(two)


def decoded_escapes() -> bytes:
    """Per byte: RFC 9309 normalisation decodes its ``%XX`` escape (robotrules._url)."""
    return _url.decoded_escape_bytes()


def path_escapes() -> bytes:
    """Per byte: RFC 9309 normalisation writes it in a path as its own ``%XX``
    (robotrules._url)."""
    return _url.escaped_path_bytes()


def path_bytes_kept() -> bytes:
    """Per byte: RFC 9309 normalisation keeps it as it is in a path (robotrules._url)."""
    return _url.normal_path_bytes()


def not_plain(dialect: Dialect) -> bytes:
    """Per byte: a rule value holding it is not a plain prefix (the dialect's spec)."""
    spec = _dialects.SPECS[dialect]
    return _flags(lambda c: spec.not_plain(chr(c)) is not None)


def dialect_flags(dialect: Dialect) -> tuple[bool, bool, bool]:
    """How the kernel answers a query in ``dialect``, read off its spec: whether
    ``/robots.txt`` is always allowed; whether a URL's path is normalised as RFC 9309 2.2.2
    reads it (the spec's path decodes an unreserved escape, as ``_url.rfc_path`` does); whether
    the path ends at its first NUL (the spec's path drops what follows one, as Google's
    matcher reads a C string)."""
    spec = _dialects.SPECS[dialect]
    return (spec.robots_txt_allowed, spec.path("https://h/%7e") == _url.rfc_path("/%7e"),
            spec.path("https://h/a\x00b") == "/a")


def token_bytes(dialect: Dialect) -> bytes:
    """Per byte: it belongs to a user-agent line's product token (robotrules._token)."""
    return _token.line_token_bytes(dialect)


def roles(dialect: Dialect) -> tuple[bytes, bool, bool]:
    """Per directive kind (128), its role in the group index; whether field names are read
    leniently (Google's typos, "key value" lines); whether a blank line ends a group (1994)."""
    spec = _dialects.SPECS[dialect]
    out = bytearray(ROLE_ENDS if k in spec.ends_agents else ROLE_OTHER for k in range(128))
    out[_tokenize.UA] = ROLE_UA
    out[_tokenize.ALLOW] = ROLE_ALLOW
    out[_tokenize.DISALLOW] = ROLE_DISALLOW
    out[_tokenize.BLANK] = ROLE_BLANK
    return bytes(out), spec.lenient_keys, spec.blank_ends_group


def _escaped(octets: bytes) -> str:
    return "".join(f"%{b:02X}" for b in octets)


@cache  # read by pattern_bytes and by the kernel: asked of the normaliser once
def pattern_escapes(dialect: Dialect) -> tuple[bytes, bool]:
    """The bytes the dialect's normaliser writes as escapes, asked of it: per ASCII byte,
    whether it is written as its own ``%XX`` (RFC 9309 2.2.2: a space, ``"``, ``{`` ..., and
    ``$`` before the end); and how a byte above 127 is written, checked for every one: in a
    value that is UTF-8, as its own ``%XX`` (both dialects); in one that is not, as the
    escapes of its Latin-1 character's UTF-8 (True: RFC 9309 reads such a file as Latin-1,
    ``%C3%A9`` for ``0xE9``) or as its own (False: robots.cc escapes every octet)."""
    pattern = _dialects.SPECS[dialect].pattern
    encodes = bytearray(256)
    for c in range(128):
        encodes[c] = pattern("/a" + chr(c) + "b") == "/a" + _escaped(bytes((c,))) + "b"
    latin1 = pattern("/a\xe9b") == "/a%C3%A9b"
    for c in range(128, 256):  # alone, a byte above 127 is never UTF-8
        octets = chr(c).encode("utf-8") if latin1 else bytes((c,))
        assert pattern("/a" + chr(c) + "b") == "/a" + _escaped(octets) + "b", (dialect, c)
    for char in ("\u00e9", "\u20ac", "\U0001f600"):  # UTF-8 of two, three and four bytes
        octets = char.encode("utf-8")
        assert pattern("/a" + octets.decode("latin-1") + "b") == "/a" + _escaped(octets) + "b"
    return bytes(encodes), latin1


def pattern_growth() -> int:
    """The most bytes one byte of a rule value becomes in its normal form, over the natively
    matched dialects (a byte above 127 of a value that is not UTF-8: ``%C3%BF``, 6)."""
    grown = 0
    for dialect in NATIVE_DIALECTS:
        pattern = _dialects.SPECS[dialect].pattern
        for c in range(256):
            grown = max(grown, len(pattern("/" + chr(c)).encode("utf-8", "surrogatepass")) - 1)
    return grown


def pattern_bytes(dialect: Dialect) -> tuple[bytes, bytes, bytes]:
    """What the kernel's C reading of patterns may do, asked of the dialect's normaliser
    (``DialectSpec.pattern``) byte by byte: the bytes it keeps as they are (never '%', nor
    bytes above 127); the bytes that send a value to the pure reading (none of: kept, '%',
    written as its own ``%XX`` escape, above 127: see :func:`pattern_escapes`); and the
    ``%XX`` escapes it decodes (it upper-cases the others)."""
    pattern = _dialects.SPECS[dialect].pattern
    kept = bytearray(256)
    slow = bytearray(256)
    decodes = bytearray(256)
    encodes = pattern_escapes(dialect)[0]
    for c in range(256):
        probe = "/a" + chr(c) + "b"
        kept[c] = 1 if c < 128 and chr(c) != "%" and pattern(probe) == probe else 0
        slow[c] = 0 if kept[c] or chr(c) == "%" or encodes[c] or c >= 128 else 1
        decoded = pattern(f"/%{c:02x}") == "/" + chr(c)
        if decoded:
            assert chr(c) not in "%*$", "a decoded escape must stay a literal"
            assert pattern(f"/%{c:02X}") == "/" + chr(c)
        else:
            assert pattern(f"/%{c:02x}") == f"/%{c:02X}", "escapes kept upper-cased"
        decodes[c] = decoded
    return bytes(kept), bytes(slow), bytes(decodes)


# -- what the kernel asks the pure core per input (each memoised by the kernel or its home) ----
#: the directive kind of a field name, and whether it was read leniently
key_class: Final = _tokenize.key_class
#: a query's user agent as the key the groups are indexed by (an ASCII agent without this
#: mark: the agent lower-cased, found in C)
query_key: Final = _token.query_key
AGENT_HEADER_MARK: Final = _token.HEADER_MARK
#: a rule value the C reading leaves to the pure one, and its companion
native_pattern: Final = _compile.native_pattern
#: RFC 9309's path of a URL holding a lone surrogate (the rest is normalised in C)
rfc_path: Final = _url.rfc_path
#: how many bytes of a byte-order mark open a body (the parse skips them)
bom_length: Final = _tokenize.bom_length
#: the slower answers' reading of a file: its text, its group index
to_text: Final = _tokenize.to_text
build_index: Final = _index.build
