# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False, infer_types=False
"""The native kernels (Cython): tokenizer, group index, matcher build and match, in C.

The pure-Python core is the reference: this module gives the same answers, faster, for the
``google`` and ``rfc9309`` dialects, and is tested against the pure core and against Google's
parser on the same generated inputs (tests/core/test_native.py). Every piece of robots.txt
knowledge it needs is read from the pure modules when it is imported, never written here
again:

- field names: :func:`robotrules._tokenize.key_class` (the directive registry), asked once
  per distinct key and remembered in a small C table;
- which kinds open a group, are rules or end a run of user-agent lines: the registry and
  the dialect specs (:mod:`robotrules._directives`, :mod:`robotrules._dialects`);
- agent tokens: :func:`robotrules._token.line_token_bytes` and :func:`~robotrules._token.query_key`;
- which bytes keep a rule a plain prefix: the dialect spec's ``not_plain``; every other
  pattern is read by :func:`robotrules._compile.native_pattern` (the pure ``new_pattern``);
- URL paths: Google's ``GetPathParamsQuery`` (ported here, as :func:`robotrules._url.path_of`
  does it), and RFC 9309 normalisation by :func:`robotrules._url.rfc_path` for any path that
  holds a byte :func:`robotrules._url.normal_path_bytes` says needs work.

What a parse builds (:class:`Doc`), all in C arrays (``PyMem``, so tracemalloc sees them):
the rules of each group (offsets into the file's bytes, which are kept, not copied), the
groups' agent tokens (sorted, lower-cased) and each distinct group selection. A selection's
matcher is compiled on its first query (a file is rarely asked about every group), in C, so
that first query costs microseconds; the rule lists go once every selection is compiled.
The directive stream is not kept (the facade asks :func:`tokenize` again when a slower API
needs it).

A matcher holds its rules as 16-byte entries, best first (the key order of
:mod:`robotrules._match`: the longest pattern, then allow, then the earliest line). A small
one is scanned; a larger one files its rules under sorted literal prefixes with parent links
(one bisection and a short walk per query), and rules that could match anywhere (``/*x``)
under their rarest run of 4, 2 or 1 literal bytes (:c:type:`LitIndex`): the same theory as
:mod:`robotrules._match`, with the same bounds.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from libc.stdint cimport int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport qsort
from libc.string cimport memchr, memcmp, memcpy, memset

from array import array

from . import _compile, _dialects, _directives, _match, _token, _tokenize, _url

cdef extern from "string.h":
    void* memmem(const void* hay, size_t hn, const void* needle, size_t nn) nogil

cdef extern from "Python.h":
    void* PyUnicode_DATA(object)
    int PyUnicode_KIND(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    bint PyUnicode_IS_ASCII(object)
    object PyUnicode_DecodeLatin1(const char* s, Py_ssize_t size, const char* errors)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    PyObject* PyDict_GetItem(object, object)

# -- constants shared with the pure core -----------------------------------------------------

cdef enum:
    KIND_SHIFT = 25
    LINE_MASK = (1 << 25) - 1
    MAX_LINE = 2083 * 8 - 1
    INDEX_BITS = 28
    PREFIX = 0
    EXACT = 1
    STAR = 2
    WILD = 3
    LINEAR_MAX = 16
    NATIVE_MAX = 1 << 28  # bodies up to 256 MiB (offsets in 32 bits, directives in 28);
                          # a longer body is read by the pure peer
    LIT_MIN = 48      # longer lists of wildcard rules get a literal index:
    LIT_NOW = 512     # at once when this long, or on a path this long,
    LIT_PATH = 256
    LIT_AFTER = 4     # else after this many queries scanned the list (a file seen once
                      # rarely pays for an index)
    LIT_SAMPLE = 2048  # rules whose runs of bytes are counted to rank them
    LIT_NONE = -1
    LIT_LATER = -2
    LIT_WANTED = -3
    NEED_INDEX = -2   # matcher_best: build the wanted indexes, then ask again
    # entry flags
    F_KIND = 3
    F_ANCHORED = 4
    F_ALLOW = 8
    F_PATS = 16
    # roles of stream kinds in the group index
    R_OTHER = 0
    R_UA = 1
    R_ALLOW = 2
    R_DISALLOW = 3
    R_BLANK = 4
    R_ENDS = 5

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

# the bytes the kernels look for, by name (ASCII; checked against the characters below)
cdef enum:
    C_NUL = 0
    C_TAB = 9          # '\t'
    C_LF = 10          # '\n'
    C_CR = 13          # '\r'
    C_SPACE = 32       # ' '
    C_HASH = 35        # '#'
    C_DOLLAR = 36      # '$'
    C_PERCENT = 37     # '%'
    C_STAR = 42        # '*'
    C_SLASH = 47       # '/'
    C_COLON = 58       # ':'
    C_SEMICOLON = 59   # ';'
    C_QUESTION = 63    # '?'
    ASCII_CASE = 0x20  # the bit that makes an ASCII letter lower-case

assert [C_NUL, C_TAB, C_LF, C_CR, C_SPACE, C_HASH, C_DOLLAR, C_PERCENT, C_STAR, C_SLASH,
        C_COLON, C_SEMICOLON, C_QUESTION] == [ord(c) for c in "\0\t\n\r #$%*/:;?"]


cdef inline int hexval(unsigned char c) noexcept nogil:
    if c'0' <= c <= c'9':
        return c - c'0'
    c |= ASCII_CASE
    if c'a' <= c <= c'f':
        return c - c'a' + 10
    return -1


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

# -- growable arrays ---------------------------------------------------------------------------

cdef struct U32Vec:
    uint32_t* data
    Py_ssize_t n
    Py_ssize_t cap


cdef int vec_reserve(U32Vec* v, Py_ssize_t extra) except -1:
    """Room for ``extra`` more words (the capacity doubles as needed)."""
    cdef Py_ssize_t cap
    cdef uint32_t* grown
    if v.n + extra > v.cap:
        cap = v.cap * 2 if v.cap else 64
        while cap < v.n + extra:
            cap *= 2
        grown = <uint32_t*>PyMem_Realloc(v.data, cap * sizeof(uint32_t))
        if grown == NULL:
            raise MemoryError()
        v.data = grown
        v.cap = cap
    return 0


cdef int vec_push(U32Vec* v, uint32_t x) except -1:
    if v.n == v.cap:
        vec_reserve(v, 1)
    v.data[v.n] = x
    v.n += 1
    return 0


cdef inline void vec_move(U32Vec* dst, U32Vec* src) noexcept:
    """Hand ``src``'s buffer over to ``dst`` (``src`` is left empty: freeing it is a no-op)."""
    dst[0] = src[0]
    memset(src, 0, sizeof(U32Vec))


cdef inline void vec_free(U32Vec* v) noexcept:
    PyMem_Free(v.data)
    v.data = NULL
    v.n = v.cap = 0


cdef void* xmalloc(Py_ssize_t size) except NULL:
    cdef void* p = PyMem_Malloc(size if size > 0 else 1)
    if p == NULL:
        raise MemoryError()
    return p

# -- field names: a small memo in front of the registry ----------------------------------------

cdef enum:
    KEY_SLOTS = 1024
    KEY_MAX = 27

cdef struct KeySlot:
    uint32_t hash
    int16_t kind  # -1: empty
    uint8_t lenient_read
    uint8_t n
    unsigned char key[KEY_MAX + 1]

cdef KeySlot _keys[2][KEY_SLOTS]


cdef dict _AGENT_KEYS = {}  # user agent -> robotrules._token.query_key(user agent)


def clear_caches():
    """Forget the field names and agents seen (the state of a fresh process)."""
    cdef int m, i
    _AGENT_KEYS.clear()
    for m in range(2):
        for i in range(KEY_SLOTS):
            _keys[m][i].kind = -1


clear_caches()
_compile.CLEAR_HOOKS.append(clear_caches)


cdef inline uint32_t fnv(const unsigned char* p, Py_ssize_t n) noexcept:
    cdef uint32_t h = 2166136261u
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * 16777619u
    return h


cdef inline uint64_t hash_bytes(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """A fast 64-bit hash: eight bytes a step."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ull ^ <uint64_t>n, w
    cdef Py_ssize_t i = 0
    while i + 8 <= n:
        memcpy(&w, p + i, 8)
        h = (h ^ w) * 0xFF51AFD7ED558CCDull
        h ^= h >> 32
        i += 8
    if i < n:
        w = 0
        memcpy(&w, p + i, n - i)
        h = (h ^ w) * 0xC4CEB9FE1A85EC53ull
        h ^= h >> 29
    return h


cdef int classify(const unsigned char* p, Py_ssize_t n, bint lenient, bint* read_leniently
                  ) except -1:
    """Stream kind of the field name ``p[:n]`` (as written), memoised per distinct name."""
    cdef uint32_t h = 0
    cdef int slot = 0, probe = 0
    cdef KeySlot* s
    cdef int m = 1 if lenient else 0
    cdef unsigned char c0 = p[0] | ASCII_CASE if c'A' <= p[0] <= c'Z' else p[0]
    cdef unsigned char c1 = (p[1] | ASCII_CASE if c'A' <= p[1] <= c'Z' else p[1]) if n > 1 else 0
    if c0 < 128 and c1 < 128 and not (_starts2[c0][c1] if n > 1 else _starts1[c0]):
        read_leniently[0] = False
        return UNKNOWN_KIND  # no directive starts so (robotrules._directives.key_starts)
    if n <= KEY_MAX:
        h = fnv(p, n)
        slot = h & (KEY_SLOTS - 1)
        for probe in range(8):
            s = &_keys[m][(slot + probe) & (KEY_SLOTS - 1)]
            if s.kind < 0:
                break
            if s.hash == h and s.n == n and memcmp(s.key, p, n) == 0:
                read_leniently[0] = s.lenient_read
                return s.kind
    kind, lenient_read = _key_class(PyUnicode_DecodeLatin1(<const char*>p, n, NULL), lenient)
    read_leniently[0] = lenient_read
    if n <= KEY_MAX:
        s = &_keys[m][(slot + probe) & (KEY_SLOTS - 1)]  # the empty slot, or the 8th probed
        s.hash = h
        s.kind = kind
        s.lenient_read = lenient_read
        s.n = n
        memcpy(s.key, p, n)
    return kind

# -- the tokenizer: robotrules._tokenize.tokenize, byte for byte --------------------------------


cdef inline Py_ssize_t find(const unsigned char* p, Py_ssize_t n, unsigned char c) noexcept:
    cdef const void* at = memchr(p, c, n)
    return -1 if at == NULL else <const unsigned char*>at - p


cdef inline void strip_ws(const unsigned char* p, Py_ssize_t* a, Py_ssize_t* b) noexcept nogil:
    """Narrow ``p[a:b]`` to its text without leading and trailing ASCII white space."""
    while a[0] < b[0] and _ws[p[a[0]]]:
        a[0] += 1
    while b[0] > a[0] and _ws[p[b[0] - 1]]:
        b[0] -= 1


cdef int emit(U32Vec* out, uint32_t head, uint32_t vstart, uint32_t vlen) except -1:
    vec_push(out, head)
    vec_push(out, vstart)
    vec_push(out, vlen)
    return 0


cdef int careful_line(const unsigned char* p, Py_ssize_t n, uint32_t lineno, uint32_t start,
                      int d, U32Vec* out) except -1:
    """robotrules._tokenize._line without findings: every rule of robots.cc."""
    cdef Py_ssize_t seg = n if n <= MAX_LINE else MAX_LINE
    cdef Py_ssize_t at, h, lead, e, colon, sp, tab, i, kend, vlead
    cdef bint missing = False, lenient_read
    cdef int kind
    at = find(p, seg, 0)
    if at >= 0:
        seg = at
    h = find(p, seg, C_HASH)
    if h >= 0:
        seg = h
    lead = 0
    e = seg
    strip_ws(p, &lead, &e)  # s = p[lead:e]
    if lead == e:
        if _legacy[d] and h < 0:
            emit(out, <uint32_t>BLANK_KIND << KIND_SHIFT | lineno, start, 0)
        return 0
    colon = find(p + lead, e - lead, C_COLON)
    if colon < 0:
        sp = find(p + lead, e - lead, C_SPACE)
        tab = find(p + lead, e - lead, C_TAB)
        if tab >= 0 and (sp < 0 or tab < sp):
            sp = tab
        if sp < 0 or not _lenient[d]:
            return 0
        i = lead + sp
        while i < e and (p[i] == C_SPACE or p[i] == C_TAB):
            i += 1
        if find(p + i, e - i, C_SPACE) >= 0 or find(p + i, e - i, C_TAB) >= 0:
            return 0
        colon = sp
        missing = True
    i = lead  # the key: s[:colon].rstrip(ws) (s starts with no white space)
    kend = lead + colon
    strip_ws(p, &i, &kend)
    if kend == lead:
        return 0
    vlead = lead + colon + 1  # the value: s[colon + 1:].strip(ws) (s ends with none)
    strip_ws(p, &vlead, &e)
    kind = classify(p + lead, kend - lead, _lenient[d], &lenient_read)
    emit(out, <uint32_t>kind << KIND_SHIFT | lineno, start + <uint32_t>vlead, <uint32_t>(e - vlead))
    return 0


cdef int scan(const unsigned char* t, Py_ssize_t size, int d, U32Vec* out, U32Vec* odd
              ) except -1:
    """robotrules._tokenize.tokenize (without findings) over the Latin-1 text ``t``. CR and
    CRLF end lines too, as in robotrules._tokenize.to_text (offsets are then into ``t``)."""
    cdef Py_ssize_t pos = 0, n, colon, hsh, a, b, end, k0, k1, i, vl, vs
    cdef const unsigned char* p
    cdef const void* cr
    cdef Py_ssize_t next_lf = -2  # the next LF at or after pos; -1: none left, -2: not known
    cdef bint crs = memchr(t, C_CR, size) != NULL, at_cr = False
    cdef const unsigned char* last_key = NULL
    cdef Py_ssize_t last_n = -1
    cdef int last_kind = 0
    cdef bint last_lenient = False
    cdef uint32_t lineno = 0, start
    cdef bint rare = size > MAX_LINE or memchr(t, 0, size) != NULL
    cdef bint legacy = _legacy[d], lenient = _lenient[d], longnul, lenient_read
    cdef int kind
    while True:
        # the LF is looked for again only once passed (CR-only bodies stay linear)
        if next_lf == -2 or (next_lf >= 0 and next_lf < pos):
            cr = memchr(t + pos, C_LF, size - pos)
            next_lf = -1 if cr == NULL else <const unsigned char*>cr - t
        n = (size - pos) if next_lf < 0 else next_lf - pos
        p = t + pos
        if crs:
            cr = memchr(p, C_CR, n)
            at_cr = cr != NULL
            if at_cr:
                n = <const unsigned char*>cr - p
        start = <uint32_t>pos
        if lineno < LINE_MASK:
            lineno += 1
        colon = find(p, n, C_COLON)
        hsh = find(p, n, C_HASH)
        longnul = rare and (n > MAX_LINE or memchr(p, 0, n) != NULL)
        if colon < 0 or (0 <= hsh < colon) or longnul:
            if longnul or (colon >= 0 and hsh != 0):  # very long, NUL, or '#' before ':'
                if odd != NULL:
                    vec_push(odd, start)
                careful_line(p, n, lineno, start, d, out)
            elif hsh != 0:  # no colon (a line starting with '#' is a comment)
                a = 0
                b = n if hsh < 0 else hsh
                strip_ws(p, &a, &b)
                if a == b:
                    if legacy and hsh < 0:
                        emit(out, <uint32_t>BLANK_KIND << KIND_SHIFT | lineno, start, 0)
                else:
                    if odd != NULL:
                        vec_push(odd, start)
                    if find(p + a, b - a, C_SPACE) >= 0 or find(p + a, b - a, C_TAB) >= 0:
                        careful_line(p, n, lineno, start, d, out)  # Google's "key value"
        else:
            k0 = 0
            k1 = colon
            strip_ws(p, &k0, &k1)
            if k1 == k0:
                if odd != NULL:
                    vec_push(odd, start)
            else:
                if k1 - k0 == last_n and memcmp(p + k0, last_key, last_n) == 0:
                    kind = last_kind  # the same field as the line before (most are)
                    lenient_read = last_lenient
                else:
                    kind = classify(p + k0, k1 - k0, lenient, &lenient_read)
                    last_key = p + k0
                    last_n = k1 - k0
                    last_kind = kind
                    last_lenient = lenient_read
                if lenient_read and odd != NULL:
                    vec_push(odd, start)
                end = n if hsh < 0 else hsh
                if (colon + 2 < n and p[colon + 1] == C_SPACE and not _ws[p[colon + 2]]
                        and not _ws[p[end - 1]]):
                    emit(out, <uint32_t>kind << KIND_SHIFT | lineno,
                         start + <uint32_t>(colon + 2), <uint32_t>(end - colon - 2))
                else:
                    i = colon + 1
                    b = end
                    strip_ws(p, &i, &b)
                    vl = b - i
                    vs = i if vl else colon + 1
                    emit(out, <uint32_t>kind << KIND_SHIFT | lineno, start + <uint32_t>vs,
                         <uint32_t>vl)
        if next_lf < 0 and not at_cr:
            break
        pos += n + 1
        if at_cr and pos < size and t[pos] == C_LF:
            pos += 1  # CRLF
    return 0


cdef str exact_str(object value, str name):
    """``value`` as an exact ``str`` (a subclass's text copied), or TypeError: checked before
    any of its memory is read."""
    if type(value) is str:
        return <str>value
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{name} must be str, not {type(value).__name__}")


cdef inline const unsigned char* latin1_data(str text) except NULL:
    if PyUnicode_KIND(text) != 1:
        raise ValueError("the text must be Latin-1 (robotrules._tokenize.to_text)")
    return <const unsigned char*>PyUnicode_DATA(text)


def tokenize(text, dialect):
    """``robotrules._tokenize.tokenize(text, dialect, odd=odd)``: the directive stream (an
    ``array('I')`` of ``(kind << 25 | line, vstart, vlen)``) and the noted line starts."""
    cdef U32Vec out, odd
    cdef const unsigned char* t
    text = exact_str(text, "text")
    dialect = exact_str(dialect, "dialect")
    if PyUnicode_GET_LENGTH(text) > NATIVE_MAX:
        raise ValueError("longer than the native kernels read (the pure tokenizer reads it)")
    t = latin1_data(text)
    ready()
    memset(&out, 0, sizeof(U32Vec))
    memset(&odd, 0, sizeof(U32Vec))
    try:
        scan(t, PyUnicode_GET_LENGTH(text), dialect_code(dialect), &out, &odd)
        dirs = array("I")
        notes = array("I")
        if out.n:
            dirs.frombytes((<char*>out.data)[:out.n * 4])
        if odd.n:
            notes.frombytes((<char*>odd.data)[:odd.n * 4])
        return dirs, notes
    finally:
        vec_free(&out)
        vec_free(&odd)

# -- matching ----------------------------------------------------------------------------------

cdef struct Entry:  # 24 bytes (six words of a U32Vec, see ENTRY_WORDS)
    uint32_t off      # offset of the pattern body in the text, or in the pats (F_PATS)
    uint32_t len      # body length in bytes
    uint32_t plen     # literal prefix length (up to the first '*')
    uint32_t prio     # priority: the pattern's length as counted (RFC 9309 2.2.2), clamped
    uint32_t index    # directive index (the earliest line wins ties)
    uint8_t flags     # kind | F_ANCHORED | F_ALLOW | F_PATS
    uint8_t pad[3]

cdef enum:
    ENTRY_WORDS = 6   # sizeof(Entry) // sizeof(uint32_t), checked below


cdef inline int64_t entry_key(const Entry* e) noexcept nogil:
    return ((RANKS - (2 * <int64_t>e.prio + ((e.flags & F_ALLOW) != 0))) << INDEX_BITS) + e.index


cdef struct Node:
    uint32_t off      # the prefix (offset, F_PATS in flags)
    uint32_t len
    uint8_t flags     # F_ALLOW (of the plain rule) | F_PATS
    uint8_t scans     # queries that scanned its other rules while they wait for an index
    uint32_t plain    # directive index of the best plain rule with exactly this prefix
    int32_t parent    # the longest other prefix that is a prefix of this one, or -1
    uint32_t special  # its other rules: entries[special : next node's special]
    int32_t lit       # a LitIndex over them, or LIT_NONE, LIT_LATER, LIT_WANTED


cdef struct HashMap:  # open addressing, linear probing; power-of-two capacity
    uint64_t* keys  # key + 1, 0: empty
    uint32_t* vals
    uint32_t cap
    uint32_t used


cdef struct LitIndex:
    uint32_t first    # the entries it indexes: entries[first : first + count]
    uint32_t count
    uint32_t nbuckets
    uint32_t* bstart  # bucket b: members[bstart[b] : bstart[b + 1]] (entry indices)
    uint32_t* members
    uint32_t nrest    # entries without a literal after the prefix, scanned
    uint32_t* rest
    HashMap table     # run of bytes (see window) -> bucket
    uint32_t* stamp   # per bucket: the query that tried it last
    uint32_t gen
    uint8_t widths    # bit w-1 set when some key has width w (1 to 4)
    uint8_t* pairs    # 65,536 bits: which two bytes start a key of width 2 to 4
    int32_t* single   # per byte: the bucket of the one-byte key, or -1


cdef struct Matcher:
    uint8_t ready     # compiled (on the first query that selects it)
    uint8_t scans     # queries that scanned the "always" list while it waits for its index
    uint8_t indexed   # 0: entries are one best-first list (a small group)
    uint32_t nentries
    Entry* entries    # linear: every rule; indexed: the nodes' other rules, then "always"
    uint32_t nnodes
    Node* nodes
    uint32_t always   # indexed: entries[always:] could match anywhere
    int32_t lit       # a LitIndex over entries[always:], or LIT_NONE, LIT_LATER, LIT_WANTED
    uint32_t nlits
    LitIndex* lits


cdef inline const unsigned char* base_of(uint8_t flags, const unsigned char* text,
                                         const unsigned char* pats) noexcept nogil:
    return pats if flags & F_PATS else text


cdef bint entry_matches(const Entry* e, const unsigned char* path, Py_ssize_t n,
                        const unsigned char* text, const unsigned char* pats) noexcept nogil:
    cdef const unsigned char* pat = base_of(e.flags, text, pats) + e.off
    cdef Py_ssize_t plen = e.plen, blen = e.len, pos, i, j, seglen
    cdef int kind = e.flags & F_KIND
    cdef const void* hit
    if plen > n or memcmp(path, pat, plen) != 0:
        return False
    if kind == PREFIX:
        return True
    if kind == EXACT:
        return n == plen
    pos = plen
    i = plen + 1  # past the first '*'
    while True:
        hit = memchr(pat + i, C_STAR, blen - i)
        j = blen if hit == NULL else <const unsigned char*>hit - pat
        seglen = j - i
        if j == blen:  # the last segment
            if e.flags & F_ANCHORED:
                return n - seglen >= pos and memcmp(path + n - seglen, pat + i, seglen) == 0
            if seglen == 0:
                return True
            return memmem(path + pos, n - pos, pat + i, seglen) != NULL
        if seglen:
            hit = memmem(path + pos, n - pos, pat + i, seglen)
            if hit == NULL:
                return False
            pos = <const unsigned char*>hit - path + seglen
        i = j + 1


cdef inline int64_t scan_entries(const Entry* es, uint32_t count, const unsigned char* path,
                                 Py_ssize_t n, int64_t best, const unsigned char* text,
                                 const unsigned char* pats) noexcept nogil:
    """The key of the first of best-first ``es`` that matches and beats ``best``."""
    cdef uint32_t k
    cdef int64_t key
    for k in range(count):
        key = entry_key(&es[k])
        if key >= best:
            return best
        if entry_matches(&es[k], path, n, text, pats):
            return key
    return best


cdef inline int64_t try_bucket(LitIndex* li, uint32_t b, uint32_t gen, const Entry* es,
                               const unsigned char* path, Py_ssize_t n, int64_t best,
                               const unsigned char* text, const unsigned char* pats) noexcept nogil:
    """Bucket ``b``'s best rule that matches and beats ``best`` (once per query)."""
    cdef uint32_t m, e
    cdef int64_t key
    if li.stamp[b] == gen:
        return best
    li.stamp[b] = gen
    for m in range(li.bstart[b], li.bstart[b + 1]):
        e = li.members[m]
        key = entry_key(&es[e])
        if key >= best:
            break
        if entry_matches(&es[e], path, n, text, pats):
            return key
    return best


cdef int64_t lit_best(LitIndex* li, const Entry* es, const unsigned char* path, Py_ssize_t n,
                      int64_t best, const unsigned char* text, const unsigned char* pats) noexcept nogil:
    """The best rule of ``li`` that matches ``path`` and beats ``best``: only the buckets
    whose key occurs in the path are tried, each once, best first within a bucket."""
    cdef int w, wi
    cdef Py_ssize_t i
    cdef uint32_t v, b, m, e, gen
    cdef int64_t key
    cdef uint64_t k
    li.gen += 1
    if li.gen == 0:
        memset(li.stamp, 0, li.nbuckets * sizeof(uint32_t))
        li.gen = 1
    gen = li.gen
    # each position: its byte's one-byte key, and the longer keys only where its two bytes
    # start one (a bitmap of 8 KiB answers that without a probe of the table)
    for i in range(n):
        if li.widths & 1:
            b = <uint32_t>li.single[path[i]]
            if b != 0xFFFFFFFFu:
                best = try_bucket(li, b, gen, es, path, n, best, text, pats)
        if i + 1 >= n:
            break
        v = path[i] | (<uint32_t>path[i + 1] << 8)
        if not (li.pairs[v >> 3] & (1 << (v & 7))):
            continue
        for wi in range(3):
            w = 4 - wi
            if not (li.widths & (1 << (w - 1))) or i + w > n:
                continue
            b = map_get(&li.table, window(path + i, w), 0xFFFFFFFFu)
            if b != 0xFFFFFFFFu:
                best = try_bucket(li, b, gen, es, path, n, best, text, pats)
    for m in range(li.nrest):
        e = li.rest[m]
        key = entry_key(&es[e])
        if key >= best:
            break
        if entry_matches(&es[e], path, n, text, pats):
            best = key
            break
    return best


cdef inline int cmp_bytes(const unsigned char* a, Py_ssize_t an, const unsigned char* b,
                          Py_ssize_t bn) noexcept nogil:
    cdef int c = memcmp(a, b, an if an < bn else bn)
    if c:
        return c
    return (an > bn) - (an < bn)


cdef int64_t matcher_best(Matcher* m, const unsigned char* path, Py_ssize_t n,
                          const unsigned char* text, const unsigned char* pats) noexcept nogil:
    cdef int64_t best = NO_MATCH, key
    cdef Py_ssize_t lo, hi, mid
    cdef int32_t k
    cdef Node* nd
    cdef uint32_t sp_end
    if not m.indexed:
        return scan_entries(m.entries, m.nentries, path, n, best, text, pats)
    # bisect_right over the sorted prefixes, minus one
    lo = 0
    hi = m.nnodes
    while lo < hi:
        mid = (lo + hi) >> 1
        nd = &m.nodes[mid]
        if cmp_bytes(path, n, base_of(nd.flags, text, pats) + nd.off, nd.len) < 0:
            hi = mid
        else:
            lo = mid + 1
    k = <int32_t>lo - 1
    while k >= 0:
        nd = &m.nodes[k]
        if nd.len <= n and memcmp(path, base_of(nd.flags, text, pats) + nd.off, nd.len) == 0:
            break
        k = nd.parent
    while k >= 0:  # every link from here on is a prefix of the path
        nd = &m.nodes[k]
        if nd.plain != NO_PLAIN:
            key = ((RANKS - (2 * <int64_t>nd.len + ((nd.flags & F_ALLOW) != 0)))
                   << INDEX_BITS) + nd.plain
            if key < best:
                best = key
        sp_end = m.nodes[k + 1].special if <uint32_t>k + 1 < m.nnodes else m.always
        best = list_best(m, &nd.lit, &nd.scans, nd.special, sp_end, path, n, best, text, pats)
        if best == NEED_INDEX:
            return NEED_INDEX
        k = nd.parent
    return list_best(m, &m.lit, &m.scans, m.always, m.nentries, path, n, best, text, pats)


cdef inline int64_t list_best(Matcher* m, int32_t* lit, uint8_t* scans, uint32_t first,
                              uint32_t end, const unsigned char* path, Py_ssize_t n,
                              int64_t best, const unsigned char* text,
                              const unsigned char* pats) noexcept nogil:
    """The best of the best-first ``m.entries[first:end]`` that matches and beats ``best``:
    through its literal index ``lit`` when it has one, else a scan, or NEED_INDEX when the
    list should get its index first (long, on a long path, or scanned LIT_AFTER times)."""
    if end <= first or entry_key(&m.entries[first]) >= best:
        return best
    if lit[0] >= 0:
        return lit_best(&m.lits[lit[0]], m.entries, path, n, best, text, pats)
    if lit[0] == LIT_LATER:
        if scans[0] < 255:
            scans[0] += 1
        if scans[0] >= LIT_AFTER or n >= LIT_PATH or end - first >= LIT_NOW:
            lit[0] = LIT_WANTED
            return NEED_INDEX
    return scan_entries(m.entries + first, end - first, path, n, best, text, pats)


cdef int index_wanted(Matcher* m, const unsigned char* text, const unsigned char* pats
                      ) except -1:
    """Build the literal indexes matcher_best asked for (LIT_WANTED)."""
    cdef uint32_t k, special, end
    for k in range(m.nnodes):
        if m.nodes[k].lit == LIT_WANTED:
            special = m.nodes[k].special
            end = m.nodes[k + 1].special if k + 1 < m.nnodes else m.always
            m.nodes[k].lit = _add_lit(m, special, end - special, text, pats)
    if m.lit == LIT_WANTED:
        m.lit = _add_lit(m, m.always, m.nentries - m.always, text, pats)
    return 0


cdef void matcher_free(Matcher* m) noexcept:
    cdef uint32_t i
    cdef LitIndex* li
    for i in range(m.nlits):
        li = &m.lits[i]
        PyMem_Free(li.bstart)
        PyMem_Free(li.members)
        PyMem_Free(li.rest)
        map_free(&li.table)
        PyMem_Free(li.stamp)
        PyMem_Free(li.pairs)
        PyMem_Free(li.single)
    PyMem_Free(m.lits)
    PyMem_Free(m.entries)
    PyMem_Free(m.nodes)
    memset(m, 0, sizeof(Matcher))

# -- building a matcher ------------------------------------------------------------------------


cdef int cmp_entry_key(const void* a, const void* b) noexcept nogil:
    cdef int64_t ka = entry_key(<const Entry*>a), kb = entry_key(<const Entry*>b)
    return (ka > kb) - (ka < kb)


cdef void sort_small(Entry* es, uint32_t n) noexcept nogil:
    """Best first: an insertion sort (the lists are short and nearly in order)."""
    cdef uint32_t i, j
    cdef Entry e
    cdef int64_t key
    for i in range(1, n):
        e = es[i]
        key = entry_key(&e)
        j = i
        while j > 0 and entry_key(&es[j - 1]) > key:
            es[j] = es[j - 1]
            j -= 1
        es[j] = e


cdef struct PrefixRef:
    uint64_t head     # the first eight bytes, big-endian (zero-padded): compared first
    uint32_t off
    uint32_t len
    uint8_t flags
    uint8_t pad
    uint32_t entry    # index into the entries being built, or 0xFFFFFFFFu for a plain rule
    uint32_t plain    # plain rule: its directive index (flags has F_ALLOW)


cdef extern from *:
    """
    static inline uint64_t robotrules_be64(const unsigned char* p) {
        uint64_t v; memcpy(&v, p, 8);
    #if defined(__GNUC__) || defined(__clang__)
    #  if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        v = __builtin_bswap64(v);
    #  endif
    #else
        v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) |
            ((uint64_t)p[3] << 32) | ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) |
            ((uint64_t)p[6] << 8) | (uint64_t)p[7];
    #endif
        return v;
    }
    """
    uint64_t robotrules_be64(const unsigned char* p) nogil


cdef inline uint64_t head8(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """The first eight bytes as a big-endian number, zero-padded."""
    cdef uint64_t h = 0
    cdef Py_ssize_t i
    if n >= 8:
        return robotrules_be64(p)
    for i in range(8):
        h = (h << 8) | (p[i] if i < n else 0)
    return h


cdef inline int cmp_prefix(const PrefixRef* x, const PrefixRef* y, const unsigned char* text,
                           const unsigned char* pats) noexcept nogil:
    """Prefix bytes (values hold no NUL, so zero padding orders a shorter prefix first),
    then entry index."""
    cdef int c
    if x.head != y.head:
        return -1 if x.head < y.head else 1
    if x.len > 8 or y.len > 8:
        c = cmp_bytes(base_of(x.flags, text, pats) + x.off, x.len,
                      base_of(y.flags, text, pats) + y.off, y.len)
        if c:
            return c
    elif x.len != y.len:
        return -1 if x.len < y.len else 1
    return (x.entry > y.entry) - (x.entry < y.entry)


cdef inline bint same_prefix(const PrefixRef* a, const PrefixRef* b, const unsigned char* text,
                             const unsigned char* pats) noexcept nogil:
    return a.head == b.head and a.len == b.len and (a.len <= 8 or memcmp(
        base_of(a.flags, text, pats) + a.off, base_of(b.flags, text, pats) + b.off, a.len) == 0)


cdef void sort_refs(PrefixRef* a, Py_ssize_t n, const unsigned char* text,
                    const unsigned char* pats) noexcept nogil:
    """Quicksort (Hoare's partition around the middle element) with insertion sort for
    short runs, by cmp_prefix (the bytes they point at passed along: no global state)."""
    cdef Py_ssize_t i, j
    cdef PrefixRef t, pivot
    while n > 12:
        pivot = a[(n - 1) >> 1]
        i = -1
        j = n
        while True:
            i += 1
            while cmp_prefix(&a[i], &pivot, text, pats) < 0:
                i += 1
            j -= 1
            while cmp_prefix(&pivot, &a[j], text, pats) < 0:
                j -= 1
            if i >= j:
                break
            t = a[i]
            a[i] = a[j]
            a[j] = t
        # a[0 .. j] and a[j + 1 .. n - 1]: recurse on the smaller, loop on the larger
        if j + 1 < n - j - 1:
            sort_refs(a, j + 1, text, pats)
            a += j + 1
            n -= j + 1
        else:
            sort_refs(a + j + 1, n - j - 1, text, pats)
            n = j + 1
    for i in range(1, n):
        t = a[i]
        j = i
        while j > 0 and cmp_prefix(&t, &a[j - 1], text, pats) < 0:
            a[j] = a[j - 1]
            j -= 1
        a[j] = t


cdef int map_init(HashMap* h, Py_ssize_t items) except -1:
    cdef uint32_t cap = 16
    while cap < 2 * items:
        cap <<= 1
    h.cap = cap
    h.used = 0
    h.keys = <uint64_t*>xmalloc(cap * sizeof(uint64_t))
    h.vals = <uint32_t*>xmalloc(cap * sizeof(uint32_t))
    memset(h.keys, 0, cap * sizeof(uint64_t))
    return 0


cdef inline uint32_t map_get(const HashMap* h, uint64_t key, uint32_t absent) noexcept nogil:
    """``key``'s value, or ``absent`` (never inserts)."""
    cdef uint64_t hh = (key + 1) * 0x9E3779B97F4A7C15ull
    cdef uint32_t mask = h.cap - 1, slot = <uint32_t>(hh >> 32) & mask
    while h.keys[slot]:
        if h.keys[slot] == key + 1:
            return h.vals[slot]
        slot = (slot + 1) & mask
    return absent


cdef int map_count(HashMap* h, uint64_t key) except -1:
    """Add one to ``key``'s count, the map growing as it fills (at most half full)."""
    cdef bint fresh
    cdef uint32_t* slot
    cdef HashMap bigger
    cdef uint32_t i
    if 2 * (h.used + 1) > h.cap:
        map_init(&bigger, h.cap)
        for i in range(h.cap):
            if h.keys[i]:
                map_slot(&bigger, h.keys[i] - 1, &fresh)[0] = h.vals[i]
        bigger.used = h.used
        map_free(h)
        h[0] = bigger
    slot = map_slot(h, key, &fresh)
    if fresh:
        h.used += 1
    slot[0] += 1
    return 0


cdef inline uint32_t* map_slot(HashMap* h, uint64_t key, bint* fresh) noexcept nogil:
    cdef uint64_t hh = (key + 1) * 0x9E3779B97F4A7C15ull
    cdef uint32_t mask = h.cap - 1, slot = <uint32_t>(hh >> 32) & mask
    while h.keys[slot]:
        if h.keys[slot] == key + 1:
            fresh[0] = False
            return &h.vals[slot]
        slot = (slot + 1) & mask
    h.keys[slot] = key + 1
    h.vals[slot] = 0
    fresh[0] = True
    return &h.vals[slot]


cdef void map_free(HashMap* h) noexcept:
    PyMem_Free(h.keys)
    PyMem_Free(h.vals)
    h.keys = NULL
    h.vals = NULL


cdef inline uint64_t window(const unsigned char* p, int w) noexcept nogil:
    """The key of the ``w`` bytes at ``p`` (1 to 4): the bytes, and the width above them."""
    cdef uint32_t v = p[0]
    if w > 1:
        v |= <uint32_t>p[1] << 8
        if w > 2:
            v |= <uint32_t>p[2] << 16
            if w > 3:
                v |= <uint32_t>p[3] << 24
    return (<uint64_t>w << 32) | v  # byte order fixed: the low 16 bits are the first two


cdef int lit_build(LitIndex* li, Entry* es, uint32_t first, uint32_t count,
                   const unsigned char* text, const unsigned char* pats) except -1:
    """Index best-first ``es[first : first + count]`` under the rarest run of 1 to 4 bytes of
    the literals after their prefix (every such literal occurs in a path the rule matches,
    so every run of its bytes does): the run the fewest rules share, the widest on a tie
    (robotrules._match._Literals, in C, with runs of three bytes too)."""
    cdef HashMap counts, buckets
    cdef uint32_t k, e, nb = 0, best_count, c, b, step, v
    cdef int w, best_w
    cdef Py_ssize_t i, j, x, total = 0
    cdef const unsigned char* pat
    cdef const void* hit
    cdef uint64_t key, chosen
    cdef bint fresh, any_lit
    cdef uint32_t* slot
    cdef uint64_t* keys_of = NULL
    cdef uint32_t* fill = NULL
    cdef U32Vec rest
    memset(li, 0, sizeof(LitIndex))
    memset(&rest, 0, sizeof(U32Vec))
    memset(&counts, 0, sizeof(HashMap))
    memset(&buckets, 0, sizeof(HashMap))
    li.first = first
    li.count = count
    try:
        map_init(&counts, 64)
        keys_of = <uint64_t*>xmalloc((count if count else 1) * sizeof(uint64_t))
        # how many rules have each run of bytes (a run repeated in one rule counts again:
        # close enough to rank them), counted over at most LIT_SAMPLE rules spread evenly
        step = count // LIT_SAMPLE + 1
        for k in range(0, count, step):
            e = first + k
            if (es[e].flags & F_KIND) < STAR:
                continue
            pat = base_of(es[e].flags, text, pats) + es[e].off
            i = es[e].plen + 1
            while i <= es[e].len:
                hit = memchr(pat + i, C_STAR, es[e].len - i)
                j = es[e].len if hit == NULL else <const unsigned char*>hit - pat
                for w in range(1, 5):
                    for x in range(i, j - w + 1):
                        map_count(&counts, window(pat + x, w))
                i = j + 1
        # each rule takes its rarest run
        map_init(&buckets, count + 1)
        for k in range(count):
            e = first + k
            any_lit = False
            if (es[e].flags & F_KIND) >= STAR:
                pat = base_of(es[e].flags, text, pats) + es[e].off
                best_count = 0xFFFFFFFFu
                best_w = 0
                chosen = 0
                i = es[e].plen + 1
                while i <= es[e].len:
                    hit = memchr(pat + i, C_STAR, es[e].len - i)
                    j = es[e].len if hit == NULL else <const unsigned char*>hit - pat
                    for w in range(4, 0, -1):
                        for x in range(i, j - w + 1):
                            key = window(pat + x, w)
                            c = map_get(&counts, key, 0)
                            if c < best_count or (c == best_count and w > best_w):
                                best_count = c
                                best_w = w
                                chosen = key
                                any_lit = True
                    i = j + 1
            if not any_lit:  # no literal after the prefix ("/*$"-like): scanned
                vec_push(&rest, e)
                keys_of[k] = 0xFFFFFFFFFFFFFFFFull
                continue
            li.widths |= 1 << (best_w - 1)
            slot = map_slot(&buckets, chosen, &fresh)
            if fresh:
                slot[0] = nb
                nb += 1
            keys_of[k] = slot[0]
        li.nbuckets = nb
        li.bstart = <uint32_t*>xmalloc((nb + 1) * sizeof(uint32_t))
        memset(li.bstart, 0, (nb + 1) * sizeof(uint32_t))
        for k in range(count):
            if keys_of[k] != 0xFFFFFFFFFFFFFFFFull:
                li.bstart[keys_of[k] + 1] += 1
        for b in range(nb):
            li.bstart[b + 1] += li.bstart[b]
        li.members = <uint32_t*>xmalloc((li.bstart[nb] + 1) * sizeof(uint32_t))
        fill = <uint32_t*>xmalloc((nb + 1) * sizeof(uint32_t))
        memcpy(fill, li.bstart, (nb + 1) * sizeof(uint32_t))
        for k in range(count):  # in entry order: each bucket stays best first
            if keys_of[k] != 0xFFFFFFFFFFFFFFFFull:
                b = <uint32_t>keys_of[k]
                li.members[fill[b]] = first + k
                fill[b] += 1
        li.table = buckets
        memset(&buckets, 0, sizeof(HashMap))
        li.pairs = <uint8_t*>xmalloc(8192)
        memset(li.pairs, 0, 8192)
        li.single = <int32_t*>xmalloc(256 * sizeof(int32_t))
        for k in range(256):
            li.single[k] = -1
        for k in range(li.table.cap):
            if li.table.keys[k]:
                key = li.table.keys[k] - 1
                if (key >> 32) == 1:
                    li.single[key & 0xFF] = <int32_t>li.table.vals[k]
                else:
                    v = <uint32_t>(key & 0xFFFF)
                    li.pairs[v >> 3] |= <uint8_t>(1 << (v & 7))
        li.stamp = <uint32_t*>xmalloc((nb + 1) * sizeof(uint32_t))
        memset(li.stamp, 0, (nb + 1) * sizeof(uint32_t))
        li.nrest = <uint32_t>rest.n
        li.rest = rest.data
        rest.data = NULL
    finally:
        map_free(&counts)
        map_free(&buckets)
        PyMem_Free(keys_of)
        PyMem_Free(fill)
        vec_free(&rest)
    return 0


cdef struct RawRule:
    uint32_t vstart
    uint32_t index    # directive index
    uint32_t vlen
    uint32_t rid      # the rule's number in the file (Doc.pat_memo)
    uint8_t allow


cdef inline bint same_body(const Entry* a, const Entry* b, const unsigned char* text,
                           const unsigned char* pats) noexcept nogil:
    return (a.len == b.len and (a.flags & (F_KIND | F_ANCHORED)) == (b.flags & (F_KIND | F_ANCHORED))
            and memcmp(base_of(a.flags, text, pats) + a.off, base_of(b.flags, text, pats) + b.off,
                       a.len) == 0)


cdef struct Pats:
    unsigned char* data  # the normalised bodies of a file's non-plain patterns
    Py_ssize_t n
    Py_ssize_t cap


cdef unsigned char* pats_reserve(Pats* pats, Py_ssize_t size) except NULL:
    """Room for ``size`` more bytes at the end (see pats_commit)."""
    cdef Py_ssize_t cap
    cdef unsigned char* grown
    if pats.n + size + 1 > pats.cap:
        cap = pats.cap * 2 if pats.cap else 256
        while cap < pats.n + size + 1:
            cap *= 2
        grown = <unsigned char*>PyMem_Realloc(pats.data, cap)
        if grown == NULL:
            raise MemoryError()
        pats.data = grown
        pats.cap = cap
    return pats.data + pats.n


cdef inline uint32_t pats_commit(Pats* pats, Py_ssize_t size) except? 0xFFFFFFFFu:
    """Keep ``size`` bytes written at pats_reserve(); their offset (below 2 ** 32 by the
    bound at the top of this module; checked)."""
    cdef Py_ssize_t at = pats.n
    if at + size >= <Py_ssize_t>0xFFFFFFFFu:
        raise OverflowError("normalised patterns past 4 GiB")  # unreachable: see the top
    pats.n += size
    return <uint32_t>at


cdef uint32_t pats_add(Pats* pats, bytes body) except? 0xFFFFFFFFu:
    cdef Py_ssize_t size = PyBytes_GET_SIZE(body)
    cdef unsigned char* w = pats_reserve(pats, size)
    memcpy(w, PyBytes_AS_STRING(body), size)
    return pats_commit(pats, size)


assert sizeof(Entry) == ENTRY_WORDS * sizeof(uint32_t)


cdef int add_entry(U32Vec* v, const Entry* e) except -1:
    """Append an Entry (ENTRY_WORDS words) to a vector of uint32 words."""
    vec_reserve(v, ENTRY_WORDS)
    memcpy(v.data + v.n, e, sizeof(Entry))
    v.n += ENTRY_WORDS
    return 0


cdef uint8_t _fast_pattern[2][256]
cdef uint8_t _pattern_slow[2][256]  # neither kept as it is nor '%': the pure reading
cdef uint8_t _pattern_decodes[2][256]


def _init_fast_patterns():
    """What the C reading of patterns below may do, asked of each dialect's pure normaliser
    (``DialectSpec.pattern``) byte by byte: the bytes it keeps as they are (never '%', nor
    bytes above 127), and the ``%XX`` escapes it decodes (the others it upper-cases)."""
    global PATTERN_GROWTH
    cdef int d, c
    cdef Py_ssize_t grown
    for d in range(2):
        pattern = _dialects.SPECS[_NAMES[d]].pattern
        # the most bytes one byte of a value becomes in its normal form (a byte above 127
        # of a value that is not UTF-8: "%C3%BF", 6, in rfc9309)
        for c in range(256):
            grown = len(pattern("/" + chr(c)).encode("utf-8", "surrogatepass")) - 1
            if grown > PATTERN_GROWTH:
                PATTERN_GROWTH = grown
        assert (2 * PATTERN_GROWTH + 1) * <uint64_t>NATIVE_MAX < 0xFFFFFFFFu, \
            "normalised patterns must stay addressable in 32 bits (see the top)"
        for c in range(256):
            probe = "/a" + chr(c) + "b"
            _fast_pattern[d][c] = 1 if (c < 128 and chr(c) != "%"
                                        and pattern(probe) == probe) else 0
            _pattern_slow[d][c] = 0 if _fast_pattern[d][c] or c == C_PERCENT else 1
            decoded = pattern(f"/%{c:02x}") == "/" + chr(c)
            if decoded:
                assert chr(c) not in "%*$", "a decoded escape must stay a literal"
                assert pattern(f"/%{c:02X}") == "/" + chr(c)
            else:
                assert pattern(f"/%{c:02x}") == f"/%{c:02X}", "escapes kept upper-cased"
            _pattern_decodes[d][c] = decoded



cdef bint fast_entry(Entry* e, const unsigned char* raw, Py_ssize_t n, int d, bint allow,
                     uint32_t index, Pats* pats) except -1:
    """robotrules._match.Pattern of the normal form of a raw rule, in C, for rules made of
    bytes the dialect keeps and ``%XX`` escapes: False when the rule needs the pure reading
    (robotrules._compile.native_pattern) instead."""
    cdef Py_ssize_t i, body = n, out = 0, plen = -1, stars = 0, norm
    cdef bint anchored = raw[n - 1] == C_DOLLAR
    cdef unsigned char* w
    cdef unsigned char c
    cdef int k
    cdef const uint8_t* slow = _pattern_slow[d]
    cdef uint8_t bad = 0
    if anchored:
        body = n - 1
    for i in range(body):
        bad |= slow[raw[i]]
    if bad:
        return False
    if allow and memmem(raw, n, b"/index.htm", 10) != NULL:
        return False  # Google's companion rule: the pure reading makes it
    w = pats_reserve(pats, body)
    # the normal form: escapes decoded or upper-cased (a '%' that starts none is kept)
    i = 0
    if memchr(raw, C_PERCENT, body) == NULL:
        memcpy(w, raw, body)
        i = out = body
    while i < body:
        c = raw[i]
        if c == C_PERCENT:
            k = escape_at(raw, i, body, _pattern_decodes[d], w, &out)
            if k:
                i += k
                continue
        w[out] = c
        out += 1
        i += 1
    norm = out + anchored  # the priority: the normal form's length, final '$' included
    # robotrules._match.Pattern: "**" is "*"; a trailing '*' matches any rest ("/a*" and
    # "/a*$" are "/a"); then the kind
    body = out
    out = 0
    if memchr(w, C_STAR, body) == NULL:
        out = body
    for i in range(out, body):
        if w[i] == C_STAR:
            if out and w[out - 1] == C_STAR:
                continue
            if plen < 0:
                plen = out
            stars += 1
        w[out] = w[i]
        out += 1
    if out and w[out - 1] == C_STAR:
        out -= 1
        stars -= 1
        anchored = False
        if stars == 0:
            plen = -1
    e.off = pats_commit(pats, out)
    e.len = <uint32_t>out  # out <= norm <= PATTERN_GROWTH * MAX_LINE: see the top
    e.plen = <uint32_t>(out if plen < 0 else plen)
    e.prio = <uint32_t>norm if norm < MAX_PRIO else MAX_PRIO
    e.flags = <uint8_t>((PREFIX if stars == 0 and not anchored else EXACT if stars == 0
                         else STAR if stars == 1 else WILD)
                        | (F_ANCHORED if anchored else 0) | (F_ALLOW if allow else 0) | F_PATS)
    e.index = index
    return True


cdef tuple pattern_of(const unsigned char* raw, Py_ssize_t n, int d, bint allow):
    """robotrules._compile.native_pattern of a raw rule value the C reading (fast_entry)
    leaves to the pure one (memoised there)."""
    return _native_pattern(PyUnicode_DecodeLatin1(<const char*>raw, n, NULL), _NAMES[d], allow)


cdef int fill_entry(Entry* e, tuple form, uint32_t index, Pats* pats) except -1:
    """An Entry from robotrules._compile.native_pattern's form (body, kind, anchored, prefix
    length, priority); every number range-checked as it is narrowed."""
    cdef bytes body = <bytes>form[0]
    cdef Py_ssize_t size = PyBytes_GET_SIZE(body), plen = form[3], prio = form[4]
    cdef int kind = form[1]
    if not (0 <= plen <= size < 0xFFFFFFFF and 0 <= prio and PREFIX <= kind <= WILD):
        raise OverflowError("a pattern form out of range")  # unreachable: see the top
    e.off = pats_add(pats, body)
    e.len = <uint32_t>size
    e.plen = <uint32_t>plen
    e.prio = <uint32_t>prio if prio < MAX_PRIO else MAX_PRIO
    e.flags = <uint8_t>(kind | (F_ANCHORED if form[2] else 0) | F_PATS)
    e.index = index
    return 0


cdef enum:
    MEMO_NONE = 0xFFFFFFFF  # pat_memo: the rule is not read yet
    MEMO_PAIR = 0x80000000  # pat_memo: its entry has a companion (the next pool entry)


cdef int pattern_entries(const RawRule* rule, const unsigned char* text, int d, Pats* pats,
                         uint32_t* memo, U32Vec* pool) except -1:
    """Read a non-plain rule into ``pool`` once per file (its entry, and its companion's),
    ``memo[rule.rid]`` pointing at them: every selection that holds the rule shares the
    normalised body in ``pats``, so what a file keeps does not grow with its agents."""
    cdef Entry e
    cdef uint32_t at = <uint32_t>(pool.n // ENTRY_WORDS)  # < 2 * rules: see the top
    cdef const unsigned char* raw = text + rule.vstart
    cdef bint allow = rule.allow
    if fast_entry(&e, raw, rule.vlen, d, allow, rule.index, pats):
        add_entry(pool, &e)
        memo[rule.rid] = at
        return 0
    main, comp = pattern_of(raw, rule.vlen, d, allow)
    fill_entry(&e, main, rule.index, pats)
    if allow:
        e.flags |= F_ALLOW
    add_entry(pool, &e)
    if comp is not None:
        fill_entry(&e, comp, rule.index, pats)
        e.flags |= F_ALLOW
        add_entry(pool, &e)
        at |= MEMO_PAIR
    memo[rule.rid] = at
    return 0


cdef int compile_rules(Matcher* m, const RawRule* rules, uint32_t count,
                       const unsigned char* text, int d, Pats* pats, uint32_t* memo,
                       U32Vec* pool) except -1:
    """Compile ``rules`` (of the selected groups) into ``m`` (their patterns read once per
    file: see pattern_entries)."""
    cdef U32Vec plain_words, other_words
    cdef Entry e
    cdef Entry* es = NULL
    cdef Entry* plains
    cdef uint32_t k, n, i, kept, nplain, nother, nref, special, always, at
    cdef const unsigned char* raw
    cdef bint plain, allow
    cdef PrefixRef* refs = NULL
    cdef PrefixRef* r
    cdef Node* nd
    cdef HashMap seen
    cdef bint fresh
    cdef uint32_t* slot
    cdef int32_t parent
    cdef Py_ssize_t c
    cdef uint64_t h
    cdef uint8_t bad
    cdef const uint8_t* tbl = _not_plain[d]
    memset(m, 0, sizeof(Matcher))
    memset(&plain_words, 0, sizeof(U32Vec))
    memset(&other_words, 0, sizeof(U32Vec))
    memset(&seen, 0, sizeof(HashMap))
    m.lit = LIT_NONE
    try:
        # room for every rule (and a companion each) up front: no regrowth while filling
        plain_words.data = <uint32_t*>xmalloc((count + 1) * sizeof(Entry))
        plain_words.cap = (count + 1) * ENTRY_WORDS
        other_words.data = <uint32_t*>xmalloc((2 * count + 1) * sizeof(Entry))
        other_words.cap = (2 * count + 1) * ENTRY_WORDS
        for k in range(count):
            n = rules[k].vlen
            if n == 0:
                continue  # an empty pattern never decides
            raw = text + rules[k].vstart
            allow = rules[k].allow
            bad = 0
            for c in range(n):
                bad |= tbl[raw[c]]
            plain = bad == 0
            if plain and allow and memmem(raw, n, b"/index.htm", 10) != NULL:
                plain = False
            if plain:
                e.off = rules[k].vstart
                e.len = n  # a raw value: at most MAX_LINE bytes
                e.plen = n
                e.prio = n
                e.flags = PREFIX | (F_ALLOW if allow else 0)
                e.index = rules[k].index
                add_entry(&plain_words, &e)
                continue
            if memo[rules[k].rid] == MEMO_NONE:
                pattern_entries(&rules[k], text, d, pats, memo, pool)
            at = memo[rules[k].rid]
            add_entry(&other_words, &(<Entry*>pool.data)[at & ~MEMO_PAIR])
            if at & MEMO_PAIR:
                add_entry(&other_words, &(<Entry*>pool.data)[(at & ~MEMO_PAIR) + 1])
        nplain = <uint32_t>(plain_words.n // ENTRY_WORDS)
        nother = <uint32_t>(other_words.n // ENTRY_WORDS)
        es = <Entry*>other_words.data
        if nother > 1:
            # of the other rules that match exactly the same paths, only the best can decide
            if nother <= 32:
                sort_small(es, nother)
            else:
                qsort(es, nother, sizeof(Entry), cmp_entry_key)
            map_init(&seen, nother)
            kept = 0
            for k in range(nother):
                h = hash_bytes(base_of(es[k].flags, text, pats.data) + es[k].off, es[k].len) ^ (
                    (es[k].flags & (F_KIND | F_ANCHORED)) * 0x01000193u)
                slot = map_slot(&seen, h, &fresh)
                if not fresh and same_body(&es[slot[0]], &es[k], text, pats.data):
                    continue
                if fresh:
                    slot[0] = kept
                es[kept] = es[k]
                kept += 1
            map_free(&seen)
            nother = kept
        if nplain + nother <= LINEAR_MAX:
            # small: every rule in one best-first list
            for k in range(nother):
                add_entry(&plain_words, &es[k])
            n = <uint32_t>(plain_words.n // ENTRY_WORDS)
            m.entries = <Entry*>plain_words.data
            plain_words.data = NULL
            m.nentries = n
            sort_small(m.entries, n)
            return 0
        # indexed: plain rules by prefix, and the others when their prefix has two bytes
        m.indexed = 1
        plains = <Entry*>plain_words.data
        refs = <PrefixRef*>xmalloc((nplain + nother) * sizeof(PrefixRef))
        nref = 0
        for k in range(nplain):
            r = &refs[nref]
            r.off = plains[k].off
            r.len = plains[k].len
            r.flags = plains[k].flags & (F_PATS | F_ALLOW)
            r.entry = 0xFFFFFFFFu
            r.plain = plains[k].index
            nref += 1
        for k in range(nother):
            if plain_node(&es[k]) or es[k].plen >= 2:
                r = &refs[nref]
                r.off = es[k].off
                r.len = es[k].plen
                r.flags = es[k].flags & (F_PATS | F_ALLOW)
                r.entry = 0xFFFFFFFFu if plain_node(&es[k]) else k
                r.plain = es[k].index
                nref += 1
        for k in range(nref):
            refs[k].head = head8(base_of(refs[k].flags, text, pats.data) + refs[k].off,
                                 refs[k].len)
        sort_refs(refs, nref, text, pats.data)
        # nodes: one per distinct prefix
        m.nodes = <Node*>xmalloc(nref * sizeof(Node))
        i = 0
        m.nnodes = 0
        while i < nref:
            nd = &m.nodes[m.nnodes]
            nd.off = refs[i].off
            nd.len = refs[i].len
            nd.flags = refs[i].flags & F_PATS
            nd.scans = 0
            nd.plain = NO_PLAIN
            nd.parent = -1
            nd.lit = LIT_NONE
            nd.special = 0
            k = i
            while k < nref and same_prefix(&refs[k], &refs[i], text, pats.data):
                if refs[k].entry == 0xFFFFFFFFu:
                    # plain rules with the same prefix: the best key is kept (lengths are
                    # equal: allow first, then the earliest line)
                    if (nd.plain == NO_PLAIN or
                            ((refs[k].flags & F_ALLOW) and not (nd.flags & F_ALLOW)) or
                            ((refs[k].flags & F_ALLOW) == (nd.flags & F_ALLOW)
                             and refs[k].plain < nd.plain)):
                        nd.plain = refs[k].plain
                        nd.flags = (nd.flags & F_PATS) | (refs[k].flags & F_ALLOW)
                k += 1
            m.nnodes += 1
            i = k
        # the nodes' other rules, best first per node, then the "always" ones
        m.entries = <Entry*>xmalloc(nother * sizeof(Entry))
        _place_specials(m, es, nother, refs, nref, text, pats.data)
        # parents: as robotrules._match.IndexedMatcher
        for k in range(1, m.nnodes):
            if _starts(&m.nodes[k], &m.nodes[k - 1], text, pats.data):
                m.nodes[k].parent = k - 1
            else:
                parent = m.nodes[k - 1].parent
                while parent >= 0 and not _starts(&m.nodes[k], &m.nodes[parent], text,
                                                   pats.data):
                    parent = m.nodes[parent].parent
                m.nodes[k].parent = parent
        # big lists of wildcard rules get a literal index (see matcher_best: when needed)
        for k in range(m.nnodes):
            special = m.nodes[k].special
            always = m.nodes[k + 1].special if k + 1 < m.nnodes else m.always
            if always - special > LIT_MIN:
                m.nodes[k].lit = LIT_LATER
        if m.nentries - m.always > LIT_MIN:
            m.lit = LIT_LATER
    finally:
        vec_free(&plain_words)
        vec_free(&other_words)
        map_free(&seen)
        PyMem_Free(refs)
    return 0


cdef inline bint plain_node(const Entry* e) noexcept nogil:
    """A plain prefix whose priority is its length: kept as a node's own rule."""
    return (e.flags & F_KIND) == PREFIX and e.prio == e.len


cdef int32_t _add_lit(Matcher* m, uint32_t first, uint32_t count, const unsigned char* text,
                      const unsigned char* pats) except -2:
    cdef LitIndex* grown = <LitIndex*>PyMem_Realloc(m.lits, (m.nlits + 1) * sizeof(LitIndex))
    if grown == NULL:
        raise MemoryError()
    m.lits = grown
    lit_build(&m.lits[m.nlits], m.entries, first, count, text, pats)
    m.nlits += 1
    return <int32_t>(m.nlits - 1)


cdef inline bint _starts(const Node* a, const Node* b, const unsigned char* text,
                         const unsigned char* pats) noexcept nogil:
    """Whether node ``a``'s prefix starts with node ``b``'s."""
    return b.len <= a.len and memcmp(base_of(a.flags, text, pats) + a.off,
                                     base_of(b.flags, text, pats) + b.off, b.len) == 0


cdef int _place_specials(Matcher* m, Entry* es, uint32_t n, PrefixRef* refs, uint32_t nref,
                         const unsigned char* text, const unsigned char* pats) except -1:
    """Copy the non-plain entries into ``m.entries`` grouped by node (best first within a
    node, as ``refs`` is sorted by prefix, then entry index), then the "always" ones."""
    cdef uint32_t i = 0, k, j = 0, node = 0
    cdef uint8_t* placed = <uint8_t*>xmalloc(n)
    memset(placed, 0, n)
    try:
        while i < nref:
            # refs[i] starts the run of node ``node``
            m.nodes[node].special = j
            k = i
            while k < nref and same_prefix(&refs[k], &refs[i], text, pats):
                if refs[k].entry != 0xFFFFFFFFu:
                    m.entries[j] = es[refs[k].entry]
                    placed[refs[k].entry] = 1
                    j += 1
                k += 1
            node += 1
            i = k
        m.always = j
        for k in range(n):
            if not plain_node(&es[k]) and not placed[k]:
                m.entries[j] = es[k]
                j += 1
        m.nentries = j
    finally:
        PyMem_Free(placed)
    return 0

# -- the parsed file ---------------------------------------------------------------------------

cdef struct Token:
    uint32_t off      # into Doc.tokbuf (lower-cased)
    uint32_t len
    uint32_t sel      # the selection (compiled matcher) this token picks


cdef enum:
    MEMO = 4
    RULE_ALLOW = 0x80000000  # rule_words: the allow bit beside a value length (< MAX_LINE)
    RULE_LEN = 0x7FFFFFFF
    BUDGET_MIN = 1 << 16     # the entries and nodes a file's compiled matchers may hold: this
    BUDGET_PER_RULE = 4      # plus this many per rule of the file (see Doc._compile)



cdef inline int token_cmp(const unsigned char* buf, const Token* a, const Token* b) noexcept nogil:
    return cmp_bytes(buf + a.off, a.len, buf + b.off, b.len)


cdef inline bint token_before(const unsigned char* buf, const Token* tokens, uint32_t x,
                             uint32_t y) noexcept nogil:
    """Token ``x`` sorts before token ``y``: by bytes, then file order (the groups ascend
    with it)."""
    cdef int c = token_cmp(buf, &tokens[x], &tokens[y])
    return c < 0 or (c == 0 and x < y)


cdef int sort_tokens(uint32_t* idx, uint32_t n, const unsigned char* buf, const Token* tokens
                     ) except -1:
    """Sort the token numbers ``idx`` by token_before: a bottom-up merge sort (stable,
    O(n log n), its context passed along: no global state)."""
    cdef uint32_t* tmp = <uint32_t*>xmalloc((n if n else 1) * sizeof(uint32_t))
    cdef uint32_t* src = idx
    cdef uint32_t* dst = tmp
    cdef uint32_t* swap
    cdef Py_ssize_t width = 1, lo, mid, hi, i, j, k
    try:
        while width < n:
            lo = 0
            while lo < n:
                mid = lo + width if lo + width < n else n
                hi = lo + 2 * width if lo + 2 * width < n else n
                i = lo
                j = mid
                k = lo
                while i < mid and j < hi:
                    if token_before(buf, tokens, src[j], src[i]):
                        dst[k] = src[j]
                        j += 1
                    else:
                        dst[k] = src[i]
                        i += 1
                    k += 1
                while i < mid:
                    dst[k] = src[i]
                    i += 1
                    k += 1
                while j < hi:
                    dst[k] = src[j]
                    j += 1
                    k += 1
                lo = hi
            swap = src
            src = dst
            dst = swap
            width *= 2
        if src != idx:
            memcpy(idx, src, n * sizeof(uint32_t))
    finally:
        PyMem_Free(tmp)
    return 0


cdef Py_ssize_t value_bytes(U32Vec* uas) noexcept:
    """The bytes of every user-agent value (room for all their tokens)."""
    cdef Py_ssize_t u, total = 0
    for u in range(uas.n // 3):
        total += uas.data[3 * u + 1]
    return total


cdef class Doc:
    """The native base of :class:`robotrules.RobotsTxt`: a parsed robots.txt in the
    ``google`` or ``rfc9309`` dialect, ready to answer. For another dialect (or a body that
    is not ``bytes``) it holds nothing and :meth:`is_allowed` asks the subclass's
    ``_pure_is_allowed``."""

    cdef bytes body           # the file's bytes, as the caller gave them
    cdef const unsigned char* t
    cdef Py_ssize_t n
    cdef Pats pats
    cdef int d
    cdef uint32_t ntokens
    cdef Token* tokens
    cdef unsigned char* tokbuf
    cdef uint32_t nsels
    cdef Matcher* sels         # sels[0]: the global selection ('*' groups, maybe none)
    cdef PyObject* memo_agent[MEMO]
    cdef uint32_t memo_sel[MEMO]
    cdef uint32_t memo_next
    cdef readonly uint32_t _native_directives
    cdef readonly bint _native_on
    # until every selection is compiled: each rule (vstart, index, vlen | RULE_ALLOW), where
    # each group's rules start, each selection's groups and where they start; per rule, its
    # entries in the pool (MEMO_NONE until read; see pattern_entries)
    cdef U32Vec rule_words, gstart, sel_groups, sel_start, pool
    cdef uint32_t* pat_memo
    cdef uint32_t nrules
    cdef Py_ssize_t tokbuf_size
    cdef uint32_t compiled
    # entries and nodes of the compiled matchers, and the most they may hold together (past
    # it, the others are dropped before one more is compiled: see _compile)
    cdef uint64_t live, budget
    cdef readonly uint64_t evictions  # how often the compiled matchers were dropped

    def __cinit__(self, body, dialect, base_url=None, bint pure=False):
        cdef int d
        cdef Py_ssize_t skip = 0, size
        cdef const unsigned char* data
        cdef const unsigned char* bom = <const unsigned char*>b"\xef\xbb\xbf"
        memset(self.memo_agent, 0, sizeof(self.memo_agent))
        memset(&self.pats, 0, sizeof(Pats))
        if pure or type(body) is not bytes or type(dialect) is not str:
            return
        if not _ready:
            ready()
        d = dialect_code(dialect)
        if d > 1:
            return
        size = PyBytes_GET_SIZE(body)
        if size > NATIVE_MAX:
            return  # offsets and directive numbers would not fit: the pure core reads it
        data = <const unsigned char*>PyBytes_AS_STRING(body)
        # robotrules._tokenize.to_text without the copy: a byte-order mark (or a prefix of
        # one) is skipped; the tokenizer reads CR and CRLF line ends as they are
        while skip < 3 and skip < size and data[skip] == bom[skip]:
            skip += 1
        self.body = body
        self.t = data + skip
        self.n = size - skip
        self.d = d
        self._build()
        self._native_on = True

    def __dealloc__(self):
        cdef uint32_t i
        for i in range(MEMO):
            if self.memo_agent[i] != NULL:
                Py_DECREF(<object>self.memo_agent[i])
        for i in range(self.nsels):
            matcher_free(&self.sels[i])
        PyMem_Free(self.sels)
        PyMem_Free(self.tokens)
        PyMem_Free(self.tokbuf)
        PyMem_Free(self.pats.data)
        PyMem_Free(self.pat_memo)
        vec_free(&self.pool)
        vec_free(&self.rule_words)
        vec_free(&self.gstart)
        vec_free(&self.sel_groups)
        vec_free(&self.sel_start)

    cdef int _build(self) except -1:
        cdef U32Vec dirs, ua_words, rule_words, gstart
        cdef Py_ssize_t i, ndirs
        cdef uint32_t head, kind, g = 0, vstart, vlen
        cdef int role
        cdef bint in_group = False, has_rules = False
        cdef const uint8_t* roles = _roles[self.d]
        memset(&dirs, 0, sizeof(U32Vec))
        memset(&ua_words, 0, sizeof(U32Vec))
        memset(&rule_words, 0, sizeof(U32Vec))
        memset(&gstart, 0, sizeof(U32Vec))
        try:
            scan(self.t, self.n, self.d, &dirs, NULL)
            ndirs = dirs.n // 3
            self._native_directives = <uint32_t>ndirs
            # groups (robotrules._index.build): user-agent lines and rules per group
            for i in range(ndirs):
                head = dirs.data[3 * i]
                kind = head >> KIND_SHIFT
                role = roles[kind]
                if role == R_UA:
                    if not in_group or has_rules:
                        vec_push(&gstart, <uint32_t>(rule_words.n // 3))
                        in_group = True
                        has_rules = False
                    vec_push(&ua_words, dirs.data[3 * i + 1])
                    vec_push(&ua_words, dirs.data[3 * i + 2])
                    vec_push(&ua_words, <uint32_t>(gstart.n - 1))
                elif role == R_BLANK:
                    in_group = False
                elif role == R_ALLOW or role == R_DISALLOW:
                    if in_group:
                        vec_push(&rule_words, dirs.data[3 * i + 1])
                        vec_push(&rule_words, <uint32_t>i)
                        vec_push(&rule_words, dirs.data[3 * i + 2] | (
                            RULE_ALLOW if role == R_ALLOW else 0))
                        has_rules = True
                elif role == R_ENDS:
                    if in_group:
                        has_rules = True
            vec_push(&gstart, <uint32_t>(rule_words.n // 3))
            vec_free(&dirs)
            self._index_agents(&ua_words, &gstart)
            self.nrules = <uint32_t>(rule_words.n // 3)  # < directives < 2 ** INDEX_BITS
            self.pat_memo = <uint32_t*>xmalloc((rule_words.n // 3) * sizeof(uint32_t))
            memset(self.pat_memo, 0xFF, (rule_words.n // 3) * sizeof(uint32_t))  # MEMO_NONE
            self.budget = BUDGET_MIN + BUDGET_PER_RULE * <uint64_t>(rule_words.n // 3)
            vec_move(&self.rule_words, &rule_words)
            vec_move(&self.gstart, &gstart)
        finally:
            vec_free(&dirs)
            vec_free(&ua_words)
            vec_free(&rule_words)
            vec_free(&gstart)
        return 0

    cdef int _index_agents(self, U32Vec* uas, U32Vec* gstart) except -1:
        """Tokens and their group selections, one slot per distinct selection for its
        matcher (robotrules._index._index_agents, then robotrules._compile.select)."""
        cdef Py_ssize_t nua = uas.n // 3, u, tlen, x
        cdef uint32_t vstart, vlen, g, off = 0, k, j, run, ntok = 0, nsel, sel
        cdef uint32_t count, lo, ngroups = <uint32_t>(gstart.n - 1)
        cdef const unsigned char* v
        cdef const uint8_t* tb = _token_byte[self.d]
        cdef U32Vec sels, sel_start
        cdef uint32_t* idx = NULL
        cdef int32_t* single = NULL
        cdef Token* tok
        cdef Token* final
        cdef uint32_t nfinal
        cdef HashMap lists
        cdef uint32_t* slot
        cdef bint fresh
        memset(&sels, 0, sizeof(U32Vec))
        memset(&sel_start, 0, sizeof(U32Vec))
        memset(&lists, 0, sizeof(HashMap))
        try:
            self.tokbuf_size = 1 + value_bytes(uas)
            self.tokbuf = <unsigned char*>xmalloc(self.tokbuf_size)
            self.tokens = <Token*>xmalloc((nua if nua else 1) * sizeof(Token))
            # the global selection first: the groups with a '*' line (in file order, once)
            vec_push(&sel_start, 0)
            for u in range(nua):
                vstart = uas.data[3 * u]
                vlen = uas.data[3 * u + 1]
                g = uas.data[3 * u + 2]
                v = self.t + vstart
                if vlen >= 1 and v[0] == C_STAR and (vlen == 1 or _ws[v[1]]):
                    if sels.n == 0 or sels.data[sels.n - 1] != g:
                        vec_push(&sels, g)
                    continue
                tlen = 0
                while tlen < vlen and tb[v[tlen]]:
                    tlen += 1
                tok = &self.tokens[ntok]
                tok.off = off
                tok.len = <uint32_t>tlen  # a value: at most MAX_LINE bytes
                tok.sel = g  # the group, until the selections are known
                for x in range(tlen):  # token bytes are ASCII: lower-case them here
                    self.tokbuf[off + x] = v[x] | ASCII_CASE if c'A' <= v[x] <= c'Z' else v[x]
                off += <uint32_t>tlen
                ntok += 1
            vec_push(&sel_start, <uint32_t>sels.n)
            # distinct tokens in byte order, each with its groups in file order
            idx = <uint32_t*>xmalloc((ntok if ntok else 1) * sizeof(uint32_t))
            for k in range(ntok):
                idx[k] = k
            sort_tokens(idx, ntok, self.tokbuf, self.tokens)
            single = <int32_t*>xmalloc((ngroups if ngroups else 1) * sizeof(int32_t))
            for k in range(ngroups):
                single[k] = -1
            if sel_start.data[1] - sel_start.data[0] == 1:
                single[sels.data[0]] = 0
            final = <Token*>xmalloc((ntok if ntok else 1) * sizeof(Token))
            map_init(&lists, ntok + 2)
            if sel_start.data[1] - sel_start.data[0] > 1:  # the global list, to share it
                map_slot(&lists, hash_bytes(<const unsigned char*>sels.data,
                                            sel_start.data[1] * sizeof(uint32_t)), &fresh)[0] = 0
            nfinal = 0
            k = 0
            while k < ntok:
                run = k
                lo = <uint32_t>sels.n
                while run < ntok and token_cmp(self.tokbuf, &self.tokens[idx[run]],
                                               &self.tokens[idx[k]]) == 0:
                    g = self.tokens[idx[run]].sel
                    if sels.n == lo or sels.data[sels.n - 1] != g:
                        vec_push(&sels, g)
                    run += 1
                # the same group list as an earlier selection?
                count = <uint32_t>sels.n - lo
                sel = 0xFFFFFFFFu
                if count == 1 and single[sels.data[lo]] >= 0:
                    sel = <uint32_t>single[sels.data[lo]]
                elif count != 1:  # by a hash of the list (a file may hold thousands)
                    slot = map_slot(&lists, hash_bytes(<const unsigned char*>&sels.data[lo],
                                                       count * sizeof(uint32_t)), &fresh)
                    if fresh:
                        slot[0] = <uint32_t>(sel_start.n - 1)  # the one made below
                    else:
                        j = slot[0]
                        if sel_start.data[j + 1] - sel_start.data[j] == count and memcmp(
                                &sels.data[sel_start.data[j]], &sels.data[lo],
                                count * sizeof(uint32_t)) == 0:
                            sel = j
                if sel == 0xFFFFFFFFu:
                    sel = <uint32_t>(sel_start.n - 1)
                    vec_push(&sel_start, <uint32_t>sels.n)
                    if count == 1:
                        single[sels.data[lo]] = <int32_t>sel
                else:
                    sels.n = lo  # drop the copy
                final[nfinal] = self.tokens[idx[k]]
                final[nfinal].sel = sel
                nfinal += 1
                k = run
            PyMem_Free(self.tokens)
            self.tokens = final
            self.ntokens = nfinal
            # one matcher per selection, compiled on its first query
            nsel = <uint32_t>(sel_start.n - 1)
            self.sels = <Matcher*>xmalloc(nsel * sizeof(Matcher))
            memset(self.sels, 0, nsel * sizeof(Matcher))
            self.nsels = nsel
            vec_move(&self.sel_groups, &sels)
            vec_move(&self.sel_start, &sel_start)
        finally:
            vec_free(&sels)
            vec_free(&sel_start)
            map_free(&lists)
            PyMem_Free(idx)
            PyMem_Free(single)
        return 0

    cdef int _compile(self, uint32_t k) except -1:
        """Compile selection ``k`` (its groups' rules) into ``self.sels[k]``. Built aside
        and then published, so that a thread that ran meanwhile (a Python callback may let
        one run) leaves one matcher, not a torn one.

        Memory stays bounded whatever number of agents query the file: the patterns are read
        once per rule (pattern_entries), and when the matchers compiled so far and this one
        would hold more than ``budget`` entries and nodes (BUDGET_MIN + BUDGET_PER_RULE per
        rule of the file), the others are dropped first (they are compiled again when asked).
        A matcher with E entries and N nodes holds at most 24 E + 40 N bytes plus its literal
        indexes (built only over lists of more than LIT_MIN entries: at most 9.3 KiB + 40
        bytes an entry each), so all of them together stay within about 300 bytes a unit of
        the budget."""
        cdef Matcher m
        cdef RawRule* rules = NULL
        cdef uint32_t count = 0, j, g, lo, hi, r, cap = 0, i
        cdef uint64_t cost
        cdef U32Vec* words = &self.rule_words
        try:
            for j in range(self.sel_start.data[k], self.sel_start.data[k + 1]):
                g = self.sel_groups.data[j]
                cap += self.gstart.data[g + 1] - self.gstart.data[g]
            rules = <RawRule*>xmalloc(cap * sizeof(RawRule))
            for j in range(self.sel_start.data[k], self.sel_start.data[k + 1]):
                g = self.sel_groups.data[j]
                lo = self.gstart.data[g]
                hi = self.gstart.data[g + 1]
                for r in range(lo, hi):
                    rules[count].vstart = words.data[3 * r]
                    rules[count].index = words.data[3 * r + 1]
                    rules[count].vlen = words.data[3 * r + 2] & RULE_LEN
                    rules[count].allow = (words.data[3 * r + 2] & RULE_ALLOW) != 0
                    rules[count].rid = r
                    count += 1
            compile_rules(&m, rules, count, self.t, self.d, &self.pats, self.pat_memo,
                          &self.pool)
        finally:
            PyMem_Free(rules)
        if self.sels[k].ready:
            matcher_free(&m)
            return 0
        cost = <uint64_t>m.nentries + m.nnodes
        if self.live + cost > self.budget:
            for i in range(self.nsels):
                if self.sels[i].ready:
                    matcher_free(&self.sels[i])
            self.live = 0
            self.compiled = 0
            self.evictions += 1
        m.ready = 1
        self.sels[k] = m
        self.live += cost
        self.compiled += 1
        if self.compiled == self.nsels:  # every selection compiled: the groups are not needed
            vec_free(&self.rule_words)
            vec_free(&self.gstart)
            vec_free(&self.sel_groups)
            vec_free(&self.sel_start)
            vec_free(&self.pool)
            PyMem_Free(self.pat_memo)
            self.pat_memo = NULL
        return 0

    cdef uint32_t _select(self, str user_agent) except 0xFFFFFFFFu:
        """The selection a user agent picks (memoised for the last few agents)."""
        cdef uint32_t i, s
        cdef Py_ssize_t lo, hi, mid, kn
        cdef int c
        cdef PyObject* ua = <PyObject*>user_agent
        cdef const unsigned char* kp
        cdef PyObject* hit
        for i in range(MEMO):
            if self.memo_agent[i] == ua:
                return self.memo_sel[i]
        hit = PyDict_GetItem(_AGENT_KEYS, user_agent)
        if hit != NULL:
            key = <object>hit
        else:
            key = _query_key(user_agent)
            if len(_AGENT_KEYS) >= 4096:
                _AGENT_KEYS.clear()
            _AGENT_KEYS[user_agent] = key
        s = 0
        if PyUnicode_IS_ASCII(key):
            kp = <const unsigned char*>PyUnicode_DATA(key)
            kn = PyUnicode_GET_LENGTH(key)
            lo = 0
            hi = self.ntokens
            while lo < hi:
                mid = (lo + hi) >> 1
                c = cmp_bytes(self.tokbuf + self.tokens[mid].off, self.tokens[mid].len, kp, kn)
                if c == 0:
                    s = self.tokens[mid].sel
                    break
                if c < 0:
                    lo = mid + 1
                else:
                    hi = mid
        i = self.memo_next
        self.memo_next = (i + 1) % MEMO
        if self.memo_agent[i] != NULL:
            Py_DECREF(<object>self.memo_agent[i])
        Py_INCREF(user_agent)
        self.memo_agent[i] = ua
        self.memo_sel[i] = s
        return s

    cdef int64_t _best(self, const unsigned char* p, Py_ssize_t n, str user_agent) except -1:
        cdef uint32_t s = self._select(user_agent)
        cdef int64_t key
        if not self.sels[s].ready:
            self._compile(s)
        key = matcher_best(&self.sels[s], p, n, self.t, self.pats.data)
        while key == NEED_INDEX:
            index_wanted(&self.sels[s], self.t, self.pats.data)
            key = matcher_best(&self.sels[s], p, n, self.t, self.pats.data)
        return key

    def _native_best(self, path, user_agent):
        """The key of the rule that decides ``path`` (a matchable path, as the dialect's
        spec gives it) for ``user_agent``, or NO_MATCH: robotrules._match's keys."""
        path = exact_str(path, "path")
        user_agent = exact_str(user_agent, "user_agent")
        if not self._native_on:
            raise ValueError("this file is not read by the native kernels")
        if PyUnicode_IS_ASCII(path):
            return self._best(<const unsigned char*>PyUnicode_DATA(path),
                              PyUnicode_GET_LENGTH(path), user_agent)
        data = path.encode("utf-8", "surrogatepass")
        return self._best(<const unsigned char*>PyBytes_AS_STRING(data),
                          PyBytes_GET_SIZE(data), user_agent)

    cdef int64_t _url_key(self, str url, str user_agent) except -3:  # -3: never a key
        """The key of the rule that decides ``url`` for ``user_agent`` (NO_MATCH when none
        does), or ROBOTS_TXT for RFC 9309's /robots.txt: the path as the dialect's spec reads
        it (robotrules._url), found in C."""
        cdef const unsigned char* u
        cdef Py_ssize_t n, start, end
        cdef bint slash
        cdef object data
        cdef unsigned char small[512]
        cdef unsigned char* buf = NULL
        cdef const unsigned char* p
        cdef Py_ssize_t plen, i, k
        cdef unsigned char* tmp
        cdef const unsigned char* nul
        if PyUnicode_IS_ASCII(url):
            u = <const unsigned char*>PyUnicode_DATA(url)
            n = PyUnicode_GET_LENGTH(url)
        else:
            data = url.encode("utf-8", "surrogatepass")
            u = <const unsigned char*>PyBytes_AS_STRING(data)
            n = PyBytes_GET_SIZE(data)
        path_span(u, n, &start, &end, &slash)
        if start < 0:
            p = <const unsigned char*>"/"
            plen = 1
        elif slash:
            plen = end - start + 1
            if plen <= 512:
                buf = &small[0]
            else:
                buf = <unsigned char*>xmalloc(plen)
            buf[0] = C_SLASH
            memcpy(buf + 1, u + start, plen - 1)
            p = buf
        else:
            p = u + start
            plen = end - start
        if self.d == 1:
            # robotrules._url.path_of: Google's matcher reads the path as a C string
            nul = <const unsigned char*>memchr(p, C_NUL, plen)
            if nul != NULL:
                plen = nul - p
        try:
            if self.d == 0:
                for i in range(plen):
                    if not _path_ok[p[i]]:
                        # escapes only: fixed here; anything else: robotrules._url.rfc_path
                        if buf == NULL or buf == &small[0]:
                            tmp = <unsigned char*>xmalloc(plen)
                        else:
                            tmp = buf
                        k = fix_escapes(p, plen, tmp)
                        if buf != NULL and buf != &small[0] and buf != tmp:
                            PyMem_Free(buf)
                        buf = tmp
                        if k >= 0:
                            p = buf
                            plen = k
                            break
                        PyMem_Free(buf)
                        buf = NULL
                        norm = _rfc_path(url).encode("utf-8", "surrogatepass")
                        data = norm
                        p = <const unsigned char*>PyBytes_AS_STRING(norm)
                        plen = PyBytes_GET_SIZE(norm)
                        break
                if plen == 11 and memcmp(p, b"/robots.txt", 11) == 0:
                    return ROBOTS_TXT  # RFC 9309 2.2.2
            return self._best(p, plen, user_agent)
        finally:
            if buf != NULL and buf != &small[0]:
                PyMem_Free(buf)

    def is_allowed(self, url, *, user_agent="*"):
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        if type(url) is not str:
            url = exact_str(url, "url")
        if type(user_agent) is not str:
            user_agent = exact_str(user_agent, "user_agent")
        if not self._native_on:
            return self._pure_is_allowed(url, user_agent)
        return (self._url_key(url, user_agent) & ALLOW_BIT) != 0  # ROBOTS_TXT has the bit

    def _native_keys(self, urls, user_agent):
        """``array('q')`` of the deciding keys of ``urls`` (a list or tuple of ``str``) for
        ``user_agent``: robotrules._match's keys, NO_MATCH, or -1 for RFC 9309's
        /robots.txt (the batch APIs: one C loop, no Python frame per URL)."""
        cdef Py_ssize_t i, n
        cdef int64_t[::1] view
        user_agent = exact_str(user_agent, "user_agent")
        if not self._native_on:
            raise ValueError("this file is not read by the native kernels")
        if type(urls) is not list and type(urls) is not tuple:
            urls = list(urls)
        n = len(urls)
        out = array("q", bytes(8 * n))
        view = out
        for i in range(n):
            url = urls[i]
            if type(url) is not str:
                url = exact_str(url, "url")
            view[i] = self._url_key(url, user_agent)
        return out

    def __sizeof__(self):
        """What the native part keeps (the body given is the caller's): every C array."""
        cdef Py_ssize_t size = sizeof(Doc) + self.ntokens * sizeof(Token) + self.pats.cap
        cdef uint32_t i, j
        cdef Matcher* m
        cdef LitIndex* li
        size += self.tokbuf_size + self.nsels * sizeof(Matcher)
        size += (self.pool.cap + self.rule_words.cap + self.gstart.cap + self.sel_groups.cap
                 + self.sel_start.cap) * sizeof(uint32_t)
        if self.pat_memo != NULL:
            size += self.nrules * sizeof(uint32_t)
        for i in range(self.nsels):
            m = &self.sels[i]
            size += m.nentries * sizeof(Entry) + m.nnodes * sizeof(Node)
            for j in range(m.nlits):
                li = &m.lits[j]
                size += sizeof(LitIndex) + 8192 + 256 * sizeof(int32_t) + (
                    2 * (li.nbuckets + 1) + li.bstart[li.nbuckets] + 1 + li.nrest
                ) * sizeof(uint32_t) + li.table.cap * (sizeof(uint64_t) + sizeof(uint32_t))
        return size


cdef inline int escape_at(const unsigned char* p, Py_ssize_t i, Py_ssize_t n,
                          const uint8_t* decodes, unsigned char* out, Py_ssize_t* o) noexcept nogil:
    """At the '%' of ``p[i]``: write the normal form of its ``%XX`` escape at ``out[o]``
    (the byte, where ``decodes`` says the normaliser decodes it; else the escape upper-cased)
    and return 3, or return 0 where no escape starts (a bare '%' is kept by the caller)."""
    cdef int hi = hexval(p[i + 1]) if i + 1 < n else -1
    cdef int lo = hexval(p[i + 2]) if i + 2 < n else -1
    cdef int v
    if hi < 0 or lo < 0:
        return 0
    v = hi * 16 + lo
    if decodes[v]:
        out[o[0]] = <unsigned char>v
        o[0] += 1
    else:
        out[o[0]] = C_PERCENT
        out[o[0] + 1] = _HEX[hi]
        out[o[0] + 2] = _HEX[lo]
        o[0] += 3
    return 3


cdef Py_ssize_t fix_escapes(const unsigned char* p, Py_ssize_t n, unsigned char* out) noexcept nogil:
    """robotrules._url.rfc_normalize of a path whose only bytes needing work are '%': each
    ``%XX`` of an unreserved character decoded, every other escape upper-cased, a '%' that
    starts no escape kept. The length written, or -1 if another byte needs work."""
    cdef Py_ssize_t i = 0, o = 0
    cdef int k
    while i < n:
        if p[i] == C_PERCENT:
            k = escape_at(p, i, n, _decoded, out, &o)
            if k:
                i += k
                continue
        elif not _path_ok[p[i]]:
            return -1
        out[o] = p[i]
        o += 1
        i += 1
    return o


cdef inline Py_ssize_t first_of3(const unsigned char* u, Py_ssize_t n, Py_ssize_t start) noexcept:
    """The first of '/', '?', ';' at or after ``start``, or -1."""
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(start, n):
        c = u[i]
        if c == C_SLASH or c == C_QUESTION or c == C_SEMICOLON:
            return i
    return -1


cdef void path_span(const unsigned char* u, Py_ssize_t n, Py_ssize_t* start, Py_ssize_t* end,
                    bint* slash) noexcept:
    """robotrules._url.path_of: ``u[start:end]`` is the path, params and query of the URL
    (``slash``: a '/' goes in front), or ``start`` is -1 for "/" (robots.cc
    GetPathParamsQuery)."""
    cdef Py_ssize_t i, search_start, early, proto, ps, h
    cdef const void* hit
    slash[0] = False
    # the common http(s)://host/... form
    if n >= 7 and memcmp(u, b"http", 4) == 0 and (
            memcmp(u + 4, b"://", 3) == 0 or (n >= 8 and memcmp(u + 4, b"s://", 4) == 0)):
        i = 7 if u[4] == C_COLON else 8
        while i < n and u[i] != C_SLASH and u[i] != C_QUESTION and u[i] != C_SEMICOLON and u[i] != C_HASH:
            i += 1
        if i >= n or u[i] == C_HASH:
            start[0] = -1
            return
        start[0] = i
        hit = memchr(u + i, C_HASH, n - i)
        end[0] = n if hit == NULL else <const unsigned char*>hit - u
        slash[0] = u[i] != C_SLASH
        return
    search_start = 2 if n >= 2 and u[0] == C_SLASH and u[1] == C_SLASH else 0
    early = first_of3(u, n, search_start)
    hit = memmem(u + search_start, n - search_start, b"://", 3) if n > search_start else NULL
    proto = -1 if hit == NULL else <const unsigned char*>hit - u
    if proto < 0 or (0 <= early < proto):
        proto = search_start
    else:
        proto += 3
    ps = first_of3(u, n, proto)
    if ps < 0:
        start[0] = -1
        return
    hit = memchr(u + search_start, C_HASH, n - search_start) if n > search_start else NULL
    h = -1 if hit == NULL else <const unsigned char*>hit - u
    if 0 <= h < ps:
        start[0] = -1
        return
    start[0] = ps
    end[0] = n if h < 0 else h
    slash[0] = u[ps] != C_SLASH


cdef int cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


def distinct_keys(keys):
    """The distinct values of ``keys`` (an ``array('q')``), sorted, as an ``array('q')``."""
    cdef const int64_t[::1] k = keys
    cdef Py_ssize_t n = k.shape[0], i, m = 0
    out = array("q", bytes(8 * n))
    cdef int64_t[::1] o = out
    if n == 0:
        return out
    memcpy(&o[0], &k[0], n * sizeof(int64_t))
    qsort(&o[0], n, sizeof(int64_t), cmp_int64)
    for i in range(1, n):
        if o[i] != o[m]:
            m += 1
            o[m] = o[i]
    del o
    del out[m + 1:]
    return out


def fill_columns(keys, table, allowed, line, rule, reason):
    """The batch API's columns: for each of ``keys``, the facts of its entry in the sorted
    ``table`` (``allowed``/``reason`` bytes, ``line``/``rule`` int64, one per table entry),
    found by bisection: four ``array`` columns, one entry per key, in one C loop."""
    cdef const int64_t[::1] k = keys
    cdef const int64_t[::1] t = table
    cdef const uint8_t[::1] ta = allowed
    cdef const int64_t[::1] tl = line
    cdef const int64_t[::1] tr = rule
    cdef const uint8_t[::1] tz = reason
    cdef Py_ssize_t n = k.shape[0], nt = t.shape[0], i, lo, hi, mid
    if not (ta.shape[0] == tl.shape[0] == tr.shape[0] == tz.shape[0] == nt):
        raise ValueError("one fact per table entry")
    out_a = array("B", bytes(n))
    out_l = array("q", bytes(8 * n))
    out_r = array("q", bytes(8 * n))
    out_z = array("B", bytes(n))
    cdef uint8_t[::1] oa = out_a
    cdef int64_t[::1] ol = out_l
    cdef int64_t[::1] orr = out_r
    cdef uint8_t[::1] oz = out_z
    for i in range(n):
        lo = 0
        hi = nt
        while lo < hi:
            mid = (lo + hi) >> 1
            if t[mid] < k[i]:
                lo = mid + 1
            else:
                hi = mid
        if lo >= nt or t[lo] != k[i]:
            raise KeyError(k[i])
        oa[i] = ta[lo]
        ol[i] = tl[lo]
        orr[i] = tr[lo]
        oz[i] = tz[lo]
    return out_a, out_l, out_r, out_z


def pattern_form(bytes raw not None, str dialect not None, bint allow):
    """The C reading of a raw rule value (for tests: it must equal the pure reading,
    ``robotrules._compile.native_pattern(raw)[0]``), or None where it defers to that."""
    cdef Entry e
    cdef Pats pats
    memset(&pats, 0, sizeof(Pats))
    cdef int d = dialect_code(dialect)
    if d > 1 or not raw:
        raise ValueError("google or rfc9309, and a non-empty value")
    ready()
    try:
        if not fast_entry(&e, <const unsigned char*>PyBytes_AS_STRING(raw), len(raw), d, allow,
                          0, &pats):
            return None
        return ((<char*>pats.data)[e.off:e.off + e.len], e.flags & F_KIND,
                bool(e.flags & F_ANCHORED), e.plen, e.prio)
    finally:
        PyMem_Free(pats.data)


include "_native_facts.pxi"
