# Part of robotrules._native (see _native.pxd for the map): tables.pxi.
# The constants checked against the pure core and the tables the kernel reads off the pure
# modules (the directive registry, the dialect specs, the agent-token and URL tables), once,
# on first use (ready()); the dialect codes.

assert KIND_SHIFT == _tokenize.KIND_SHIFT and MAX_LINE == _tokenize.MAX_LINE
assert INDEX_BITS == _compile.INDEX_MASK.bit_length()

# Integer widths (issue 20, "safe by construction"): a body holds at most NATIVE_MAX bytes, so
# every offset into it, every directive index (< NATIVE_MAX / 3 < 2 ** INDEX_BITS) and every
# line number fits 32 bits; a value is at most MAX_LINE bytes (robots.cc's line cap), and its
# normal form at most PATTERN_GROWTH times that (measured off the dialects' normalisers by
# _init_fast_patterns), so every pattern length, literal-prefix length and priority fits 32
# bits too (priorities are clamped as robotrules._match clamps them). Each distinct rule is
# normalised once per file (Doc.pat_memo), so the normalised bodies of a file (Pats) hold at
# most (2 * PATTERN_GROWTH + 1) * NATIVE_MAX bytes (a companion rule each): below 2 ** 32,
# checked at start-up and again by pats_commit. Counts of rules, entries and nodes are below
# the number of directives. Lengths handed in from Python (paths, agents) are Py_ssize_t.
cdef int64_t RANKS = 1 << 24
cdef uint32_t MAX_PRIO = _match._MAX_PRIORITY
assert RANKS == _match._RANKS
cdef Py_ssize_t PATTERN_GROWTH = 0  # measured on first use (_init_fast_patterns)
cdef int64_t NO_MATCH = (<int64_t>1 << 60) | (<int64_t>1 << INDEX_BITS)
cdef int64_t ALLOW_BIT = <int64_t>1 << INDEX_BITS
cdef int64_t ROBOTS_TXT = -1  # _url_key: RFC 9309's /robots.txt (all bits set: allowed)
cdef uint32_t NO_PLAIN = 0xFFFFFFFFu
assert NO_MATCH == _compile.NO_MATCH

DIALECTS = ("rfc9309", "google")  # the dialects matched natively (1994: tokenizer only)
cdef tuple _NAMES = ("rfc9309", "google", "1994")

cdef const char* _HEX = b"0123456789ABCDEF"


assert [C_NUL, C_TAB, C_LF, C_CR, C_SPACE, C_HASH, C_DOLLAR, C_PERCENT, C_STAR, C_SLASH,
        C_COLON, C_SEMICOLON, C_QUESTION] == [ord(c) for c in "\0\t\n\r #$%*/:;?"]


cdef int BLANK_KIND = _tokenize.BLANK
cdef int UNKNOWN_KIND = _directives.UNKNOWN
cdef uint8_t _starts1[128]
cdef uint8_t _starts2[128][128]
cdef uint8_t _ws[256]
cdef uint8_t _not_plain[2][256]
cdef uint8_t _token_byte[2][256]
cdef uint8_t _path_ok[256]
cdef uint8_t _decoded[256]
cdef uint8_t _roles[3][128]
cdef bint _lenient[3]
cdef bint _legacy[3]


def _init_tables():
    cdef int c, d, k
    for c in range(256):
        _ws[c] = 1 if chr(c) in _tokenize._WS else 0
    memset(_starts1, 0, sizeof(_starts1))
    memset(_starts2, 0, sizeof(_starts2))
    for head in _directives.key_starts():
        if len(head) == 1 and ord(head) < 128:
            _starts1[ord(head)] = 1
        elif len(head) == 2 and ord(head[0]) < 128 and ord(head[1]) < 128:
            _starts2[ord(head[0])][ord(head[1])] = 1
    dec = _url.decoded_escape_bytes()
    for c in range(256):
        _decoded[c] = dec[c]
    ok = _url.normal_path_bytes()
    for c in range(256):
        _path_ok[c] = ok[c]
    for d in range(2):
        spec = _dialects.SPECS[_NAMES[d]]
        table = _token.line_token_bytes(_NAMES[d])
        for c in range(256):
            _not_plain[d][c] = 1 if spec.not_plain(chr(c)) is not None else 0
            _token_byte[d][c] = table[c]
    for d in range(3):
        spec = _dialects.SPECS[_NAMES[d]]
        _lenient[d] = spec.lenient_keys
        _legacy[d] = spec.blank_ends_group
        for k in range(128):
            _roles[d][k] = R_ENDS if k in spec.ends_agents else R_OTHER
        _roles[d][_tokenize.UA] = R_UA
        _roles[d][_tokenize.ALLOW] = R_ALLOW
        _roles[d][_tokenize.DISALLOW] = R_DISALLOW
        _roles[d][_tokenize.BLANK] = R_BLANK


_key_class = _tokenize.key_class
_query_key = _token.query_key
_native_pattern = _compile.native_pattern
_rfc_path = _url.rfc_path


cdef bint _ready = False


cdef int ready() except -1:
    """Read the tables off the pure modules, once, on first use (not at import: importing
    robotrules stays cheap)."""
    global _ready
    if not _ready:
        _init_tables()
        _init_fast_patterns()
        _ready = True
    return 0


cdef inline int dialect_code(str dialect) except -1:
    if dialect == "rfc9309":
        return 0
    if dialect == "google":
        return 1
    if dialect == "1994":
        return 2
    raise ValueError(dialect)
