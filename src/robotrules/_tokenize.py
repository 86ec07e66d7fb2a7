"""Bytes to lines to directives: the one token stream behind parsing, linting and ``explain``.

Line handling follows Google's ``robots.cc`` byte for byte (``google`` and ``rfc9309``):

- a UTF-8 byte-order mark (or any prefix of one) is skipped at the very start only;
- LF, CR and CRLF end lines (``\\n\\r`` is two line ends); the last line is always emitted;
- only the first 16,663 bytes of a line are kept; a NUL byte ends the line;
- ``#`` starts a comment anywhere; leading and trailing ASCII white space is stripped;
- ``key: value`` is split at the first colon; without a colon, a line of exactly two
  space- or tab-separated words is read as ``key value`` (Google's missing-colon rule);
- field names match by case-insensitive prefix, with Google's accepted misspellings.

The body is decoded as Latin-1 (one character per byte) so that every step is a fast ``str``
operation while staying byte-exact. Directives are stored compactly (parallel arrays of kinds
and offsets into the text), not as one object per line: a parsed file costs little memory.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from . import _directives
from ._dialects import SPECS
from ._findings import finding

if TYPE_CHECKING:
    from ._model import Finding
    from ._types import Dialect

__all__ = ["tokenize"]

MAX_LINE: Final = 2083 * 8 - 1  # Google keeps the first 16,663 bytes of a line
#: white space around keys and values: absl::ascii_isspace
WHITESPACE: Final = " \t\n\v\f\r"
_WS: Final = WHITESPACE
#: the UTF-8 byte-order mark (a parse skips it, or any prefix of it, at the start)
BOM: Final = b"\xef\xbb\xbf"

# Stream kinds: a directive's place in the registry (robotrules._directives), plus two.
UA: Final[int] = _directives.kind_of("user-agent")
ALLOW: Final[int] = _directives.kind_of("allow")
DISALLOW: Final[int] = _directives.kind_of("disallow")
SITEMAP: Final[int] = _directives.kind_of("sitemap")
CRAWL_DELAY: Final[int] = _directives.kind_of("crawl-delay")
REQUEST_RATE: Final[int] = _directives.kind_of("request-rate")
VISIT_TIME: Final[int] = _directives.kind_of("visit-time")
UNKNOWN: Final[int] = _directives.UNKNOWN
BLANK: Final[int] = _directives.BLANK
KIND_NAMES: Final = _directives.KIND_NAMES


def classify_key(key: str, dialect: Dialect) -> tuple[int, str | None]:
    """Stream kind of a field name and, when it was read leniently, the intended name."""
    return _directives.classify_key(key, SPECS[dialect].lenient_keys)


def key_class(key: str, lenient: bool) -> tuple[int, bool]:
    """Stream kind of a field name as written, and whether it was read leniently (a Google
    misspelling or prefix): what the native tokenizer asks once per distinct key."""
    kind, intended = _directives.classify_key(key, lenient)
    return kind, intended is not None


def to_bytes(body: bytes | bytearray | memoryview | str) -> bytes:
    if isinstance(body, str):
        try:
            return body.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return body.encode("utf-8", "surrogatepass")
    return bytes(body)


def display(raw: str) -> str:
    """Latin-1 text of raw bytes back to readable text: UTF-8, with U+FFFD for bytes that are
    not UTF-8."""
    if raw.isascii():
        return raw
    data = raw.encode("latin-1")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


# A directive's head is kind << KIND_SHIFT | line: 7 bits of kind (the registry may grow to
# 125 entries), 25 bits of line; lines past 33,554,431 are numbered as that one.
KIND_SHIFT: Final = 25
LINE_MASK: Final = (1 << KIND_SHIFT) - 1
_EXACT_SHIFTED: Final = {
    name: _directives.kind_of(key) << KIND_SHIFT
    for key in ("user-agent", "allow", "disallow", "sitemap")
    for name in (key, key.capitalize(), key.title(), key.upper())
}


_CLASSIFIED: dict[tuple[str, str], int] = {}
_LENIENT: set[tuple[str, str]] = set()  # keys read by Google's misspelling or prefix rule


def _classified(low: str, dialect: Dialect) -> int:
    """classify_key() of a lower-cased key, shifted, memoised (keys repeat across files)."""
    ck = (low, dialect)
    kind = _CLASSIFIED.get(ck)
    if kind is None:
        kind, intended = classify_key(low, dialect)
        kind <<= KIND_SHIFT
        if len(_CLASSIFIED) > 4096:
            _CLASSIFIED.clear()
            _LENIENT.clear()
        _CLASSIFIED[ck] = kind
        if intended is not None:
            _LENIENT.add(ck)
    return kind


def clear_caches() -> None:
    _CLASSIFIED.clear()
    _LENIENT.clear()


def bom_length(body: bytes) -> int:
    """How many bytes of a UTF-8 byte-order mark, or of any prefix of one, open ``body``: the
    bytes a parse skips (robots.cc). The rule's one home: the native kernel asks it too."""
    skip = 0
    while skip < 3 and skip < len(body) and body[skip] == BOM[skip]:
        skip += 1
    return skip


def strip_bom(body: bytes) -> tuple[bytes, int]:
    """Skip a UTF-8 byte-order mark, or any prefix of one, at the very start (robots.cc)."""
    skip = bom_length(body)
    return (body[skip:] if skip else body), skip


def to_text(body: bytes) -> tuple[str, int]:
    """Body bytes to the Latin-1 text that tokenize() reads, and the BOM bytes skipped."""
    body, skip = strip_bom(body)
    text = body.decode("latin-1")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, skip


def tokenize(text: str, dialect: Dialect, findings: list[Finding] | None = None, *,
             odd: list[int] | None = None) -> array[int]:
    """Cut ``text`` into directives: a flat array of ``(kind << 25 | line, vstart, vlen)``.

    With a ``findings`` list every line takes the careful path and each oddity is recorded;
    without one, well-formed ``key: value`` lines take a fast path that yields the same
    directives (a test checks both paths agree on the whole corpus). ``odd`` collects the start
    of every line the careful path would have a finding for, so that :func:`recheck` can give
    those findings later by reading only these lines again.
    """
    out: list[int] = []  # a list while building (faster, also compiled); packed at the end
    append = out.append
    legacy = SPECS[dialect].blank_ends_group
    exact = _EXACT_SHIFTED
    ws = _WS
    careful = findings is not None
    note = odd.append if odd is not None else None
    # what can only happen if the text holds it is checked once, not on every line
    rare = careful or "\0" in text or len(text) > MAX_LINE
    pos = 0
    lineno = 0
    big = len(text) > LINE_MASK  # only such a text can have more lines than heads can number
    for line in text.split("\n"):
        lineno += 1
        if big and lineno > LINE_MASK:
            lineno = LINE_MASK
        start = pos
        n = len(line)
        pos += n + 1
        colon = line.find(":")
        hash_at = line.find("#")
        if colon < 0 or 0 <= hash_at < colon or (rare and (
                careful or n > MAX_LINE or "\0" in line)):
            if not careful and not (rare and (n > MAX_LINE or "\0" in line)):
                # a short line without NUL: most such lines are comments, blank lines or
                # HTML (pages served as robots.txt), told apart here without the careful path
                if hash_at == 0:
                    continue  # a comment
                if colon < 0:
                    s = (line if hash_at < 0 else line[:hash_at]).strip(ws)
                    if not s:  # empty, or white space (and a comment)
                        if legacy and hash_at < 0:
                            out += (BLANK << KIND_SHIFT | lineno, start, 0)
                        continue
                    if " " not in s and "\t" not in s:
                        if note is not None:
                            note(start)  # "not a directive" (or HTML)
                        continue  # one word: not Google's two-word line either
            if note is not None:
                note(start)
            _line(line, lineno, start, dialect, out, findings)  # empty lines included
            continue
        kind = exact.get(line[:colon])  # "Disallow:" as most files write it
        if kind is None:
            key = line[:colon].strip(ws)
            kind = exact.get(key)
            if kind is None:
                low = key.lower()
                kind = exact.get(low)
                if kind is None:
                    if not key:
                        if note is not None:
                            note(start)  # a value without a field name
                        continue
                    kind = _classified(low, dialect)
                    if note is not None and (low, dialect) in _LENIENT:
                        note(start)  # a misspelt key, read as Google reads it
        end = n if hash_at < 0 else hash_at
        # "key: value" with one space and nothing to strip at the end, read without copying
        # (one-character slices are shared objects; "" is in every string, so an empty
        # value takes the general path)
        if (line[colon + 1 : colon + 2] == " " and line[colon + 2 : colon + 3] not in ws
                and line[end - 1 : end] not in ws):
            append(kind | lineno)
            append(start + colon + 2)
            append(end - colon - 2)
            continue
        rest = line[colon + 1 : end]
        value = rest.lstrip(ws)
        vlen = len(value.rstrip(ws))
        append(kind | lineno)
        # an empty value starts right after the colon, as the careful path says
        append(start + colon + 1 + (len(rest) - len(value) if vlen else 0))
        append(vlen)
    return array("I", out)


def recheck(text: str, dialect: Dialect, starts: Iterable[int],
            findings: list[Finding]) -> None:
    """The careful path's findings for the lines starting at ``starts`` (ascending), which
    :func:`tokenize` noted: the rest of the file has none, so it is not read again."""
    scratch: list[int] = []
    lineno = 1
    at = 0
    for start in starts:
        lineno += text.count("\n", at, start)
        at = start
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        _line(line, min(lineno, LINE_MASK), start, dialect, scratch, findings)
        scratch.clear()


def _line(
    line: str, lineno: int, start: int, dialect: Dialect, dirs: list[int],
    findings: list[Finding] | None,
) -> None:
    """The careful path for one line: every rule of robots.cc, every finding."""
    seg = line
    if len(seg) > MAX_LINE:
        seg = seg[:MAX_LINE]
        if findings is not None:
            findings.append(finding("L019", lineno, MAX_LINE + 1,
                     f"line is {len(line):,} bytes; Google reads only the first {MAX_LINE:,}"))
    if "\0" in seg:
        seg = seg[: seg.index("\0")]
        if findings is not None:
            findings.append(finding("L029", lineno, len(seg) + 1,
                     "NUL byte: the rest of the line is ignored", severity="error"))
    hash_at = seg.find("#")
    if hash_at >= 0:
        seg = seg[:hash_at]
    left = seg.lstrip(_WS)
    spec = SPECS[dialect]
    if not left:
        if spec.blank_ends_group and hash_at < 0:
            dirs.append(BLANK << KIND_SHIFT | lineno)
            dirs.append(start)
            dirs.append(0)
        return
    lead = len(seg) - len(left)
    s = left.rstrip(_WS)
    colon = s.find(":")
    missing_colon = False
    if colon < 0:
        sp = s.find(" ")
        tab = s.find("\t")
        if tab >= 0 and (sp < 0 or tab < sp):
            sp = tab
        rest = s[sp:].lstrip(" \t") if sp >= 0 else ""
        if sp < 0 or " " in rest or "\t" in rest or not spec.lenient_keys:
            if findings is not None:
                _not_a_directive(findings, s, lineno, lead + 1, sp < 0)
            return
        colon = sp
        missing_colon = True
    key = s[:colon].rstrip(_WS)
    if not key:
        if findings is not None:
            findings.append(finding("L029", lineno, lead + 1,
                     "line has a value but no field name; ignored"))
        return
    after = s[colon + 1 :]
    value = after.lstrip(_WS)
    vstart = start + lead + colon + 1 + (len(after) - len(value))
    kind, intended = classify_key(key, dialect)
    if findings is not None:
        if missing_colon:
            name = intended or KIND_NAMES.get(kind, key).capitalize()
            findings.append(finding("L004", lineno, lead + len(key) + 1,
                     f"no colon after '{display(key)}'"
                     + (" (Google reads it anyway)" if kind != UNKNOWN else "; ignored"),
                     f"{name}: {display(value)}"))
        if intended is not None:
            findings.append(finding("L003", lineno, lead + 1,
                     f"'{display(key)}' read as '{intended}' (Google accepts it; other "
                     "parsers may not)", f"{intended}: {display(value)}"))
    dirs.append(kind << KIND_SHIFT | lineno)
    dirs.append(vstart)
    dirs.append(len(value))


def key_of(text: str, vstart: int) -> str:
    """The field name of the directive whose value starts at ``vstart`` (re-read from its
    line, so that keys need not be stored)."""
    line_start = text.rfind("\n", 0, vstart) + 1
    seg = text[line_start:vstart]
    colon = seg.find(":")
    if colon < 0:  # Google's two-word line: the key ends at the first space or tab
        s = seg.strip(_WS)
        cut = min((i for i in (s.find(" "), s.find("\t")) if i >= 0), default=len(s))
        return s[:cut]
    return seg[:colon].strip(_WS)


def _not_a_directive(
    findings: list[Finding], s: str, lineno: int, column: int, one_word: bool
) -> None:
    low = s.lower()
    if low.startswith(("<", "<!doctype")):
        findings.append(finding("L020", lineno, column,
                 "HTML markup in robots.txt; the line is ignored"))
        return
    key = s.split(None, 1)[0] if s.split() else s
    kind, _ = classify_key(key, "google")
    if kind != UNKNOWN and not one_word:
        findings.append(finding("L004", lineno, column,
                 f"no colon after '{display(key)}' and more than one value word; ignored",
                 f"{KIND_NAMES.get(kind, key).capitalize()}: ..."))
        return
    findings.append(finding("L029", lineno, column,
             f"'{display(s[:60])}' is not a 'field: value' line; ignored"))
