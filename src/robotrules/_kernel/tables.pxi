# Part of robotrules._native (see _native.pxd for the map): tables.pxi.
# The constants checked against the pure core and the tables the kernel reads off the pure
# modules, all computed by robotrules._tables (their one pure home, with its own tests), once,
# on first use (ready()); the dialect codes.

assert KIND_SHIFT == _tables.KIND_SHIFT and MAX_LINE == _tables.MAX_LINE
assert INDEX_BITS == _tables.INDEX_BITS

# Integer widths (safe by construction): a body holds at most NATIVE_MAX bytes, so
# every offset into it, every directive index (< NATIVE_MAX / 3 < 2 ** INDEX_BITS) and every
# line number fits 32 bits; a value is at most MAX_LINE bytes (robots.cc's line cap), and its
# normal form at most PATTERN_GROWTH times that (robotrules._tables.pattern_growth), so every
# pattern length and literal-prefix length fits 17 bits and every priority 23 (priorities are
# clamped as robotrules._match clamps them): an Entry packs them in bit-fields
# (_native.pxd). Each distinct rule is normalised once per file (Doc.pat_memo), so the
# normalised bodies of a file (Pats) hold at most (2 * PATTERN_GROWTH + 1) * NATIVE_MAX bytes
# (a companion rule each): below 2 ** 32, checked at start-up and again by pats_commit.
# Counts of rules, entries and nodes are below the number of directives. Lengths handed in from Python (paths, agents) are Py_ssize_t. A
# matcher node packs its prefix length (at most PATTERN_GROWTH * MAX_LINE < 2 ** 24: checked
# at start-up) with its flags in one word.
cdef int64_t RANKS = 1 << 24
cdef uint32_t MAX_PRIO = _tables.MAX_PRIORITY
assert RANKS == _tables.RANKS
assert MAX_PRIO < (1 << PRIO_BITS) and (F_KIND | F_ANCHORED | F_ALLOW | F_PATS) < (
    1 << FLAG_BITS), "an Entry's priority and flags fit its bit-fields (_native.pxd)"
cdef Py_ssize_t PATTERN_GROWTH = 0  # read on first use (ready)
cdef int64_t NO_MATCH = (<int64_t>1 << 60) | (<int64_t>1 << INDEX_BITS)
cdef int64_t ALLOW_BIT = <int64_t>1 << INDEX_BITS
cdef int64_t ROBOTS_TXT = -1  # _url_key: RFC 9309's /robots.txt (all bits set: allowed)
cdef uint32_t NO_PLAIN = 0xFFFFFFFFu
assert NO_MATCH == _tables.NO_MATCH
assert (R_OTHER, R_UA, R_ALLOW, R_DISALLOW, R_BLANK, R_ENDS) == (
    _tables.ROLE_OTHER, _tables.ROLE_UA, _tables.ROLE_ALLOW, _tables.ROLE_DISALLOW,
    _tables.ROLE_BLANK, _tables.ROLE_ENDS)

#: the dialects the native peer reads (robotrules._peers picks the pure one for the others)
DIALECTS = _tables.NATIVE_DIALECTS
#: the longest body the native peer reads (robotrules._peers picks the pure one past it)
MAX_BODY = NATIVE_MAX
cdef tuple _NAMES = _tables.CODES


cdef struct DialectTables:
    # one dialect's flags and byte tables, read off its DialectSpec by robotrules._tables (the
    # kernel branches on these, never on a dialect's code): every dialect's roles and key
    # reading (the tokenizer reads them all); the rest for the dialects the kernel matches
    uint8_t roles[128]   # per directive kind, its role in the group index
    bint lenient         # field names read leniently (Google's typos, "key value" lines)
    bint legacy          # a blank line ends a group (1994)
    bint native          # the kernel matches it (robotrules._tables.NATIVE_DIALECTS)
    bint robots_txt_allowed  # /robots.txt is always allowed (DialectSpec.robots_txt_allowed)
    bint normal_path     # a URL's path is normalised as RFC 9309 2.2.2 reads it (normal_path)
    bint nul_ends_path   # a path ends at its first NUL (Google's matcher reads a C string)
    bint latin1_high     # a value that is not UTF-8: a byte above 127 read as Latin-1
    uint8_t not_plain[256]
    uint8_t token_byte[256]
    uint8_t pattern_slow[256]  # neither kept as it is nor '%': the pure reading
    uint8_t pattern_decodes[256]
    uint8_t pattern_encodes[256]  # ASCII bytes written as their own %XX
    uint8_t pattern_attn[256]  # above 127, escaped or slow: fast_entry counts them
    uint8_t scan_stop[256]  # not_plain, pattern_attn or '%': Doc._scan reads no further


# one per dialect code (len(_NAMES) of them, made by ready(), never freed: ByteSets point in)
cdef DialectTables* _dialect_tables = NULL

cdef const char* _HEX = b"0123456789ABCDEF"


assert [C_NUL, C_TAB, C_LF, C_CR, C_SPACE, C_HASH, C_DOLLAR, C_PERCENT, C_STAR, C_SLASH,
        C_COLON, C_SEMICOLON, C_QUESTION] == [ord(c) for c in "\0\t\n\r #$%*/:;?"]


cdef int BLANK_KIND = _tables.BLANK
cdef int UNKNOWN_KIND = _tables.UNKNOWN
cdef uint8_t _starts1[128]
cdef uint8_t _starts2[128][128]
cdef uint8_t _ws[256]
cdef uint8_t _path_ok[256]
cdef uint8_t _decoded[256]
cdef uint8_t _path_escaped[256]  # written in a path as its own %XX
cdef uint8_t _path_work[256]  # not in _path_ok: a path holding one needs normal_path
cdef int8_t _hex_value[256]  # a hex digit's value (either case), -1 for any other byte
cdef bytes _COMPANION = _tables.COMPANION_MARK  # Google's companion rule's trigger
cdef unsigned char _agent_mark  # robotrules._token.HEADER_MARK
cdef list _KEY_FORMS = [(), ()]  # the names and the lenient prefixes (_tables.key_forms)
cdef uint8_t _bom_start[256]  # the bytes that may open a byte-order mark (Doc: bom_length)


cdef int copy_table(uint8_t* dst, bytes src, Py_ssize_t n) except -1:
    if PyBytes_GET_SIZE(src) != n:
        raise ValueError("a table of robotrules._tables has the wrong size")
    memcpy(dst, PyBytes_AS_STRING(src), n)
    return 0


cdef int _init_dialect(int d) except -1:
    """_init_tables' part for dialect ``d``: its DialectTables and byte sets."""
    cdef int b
    cdef DialectTables* t
    t = &_dialect_tables[d]
    roles, t.lenient, t.legacy = _tables.roles(_NAMES[d])
    copy_table(t.roles, roles, 128)
    t.native = _NAMES[d] in _tables.NATIVE_DIALECTS
    if not t.native:
        return 0
    t.robots_txt_allowed, t.normal_path, t.nul_ends_path = _tables.dialect_flags(_NAMES[d])
    copy_table(t.not_plain, _tables.not_plain(_NAMES[d]), 256)
    byteset_init(&_not_plain_set[d], t.not_plain)
    copy_table(t.token_byte, _tables.token_bytes(_NAMES[d]), 256)
    _, slow, decodes = _tables.pattern_bytes(_NAMES[d])
    copy_table(t.pattern_slow, slow, 256)
    copy_table(t.pattern_decodes, decodes, 256)
    encodes, t.latin1_high = _tables.pattern_escapes(_NAMES[d])
    copy_table(t.pattern_encodes, encodes, 256)
    for b in range(256):
        t.pattern_attn[b] = b >= 0x80 or t.pattern_encodes[b] or t.pattern_slow[b]
    byteset_init(&_pattern_attn_set[d], t.pattern_attn)
    for b in range(256):
        t.scan_stop[b] = t.not_plain[b] or t.pattern_attn[b] or b == C_PERCENT
    # Build.heads: a clean byte is below 128 (its pairs leave bits 7 and 15 clear)
    assert all(t.scan_stop[b] for b in range(128, 256))
    return 0


def _init_tables():
    """Copy every table off robotrules._tables (their one home) into the C arrays above."""
    global PATTERN_GROWTH, _agent_mark, _dialect_tables, _not_plain_set, _pattern_attn_set
    cdef int d, b
    cdef Py_ssize_t nd = len(_NAMES)
    cdef DialectTables* t
    copy_table(_ws, _tables.whitespace(), 256)
    one, two = _tables.key_heads()
    _KEY_FORMS[0], _KEY_FORMS[1] = _tables.key_forms()
    copy_table(_starts1, one, 128)
    copy_table(&_starts2[0][0], two, 128 * 128)
    copy_table(_decoded, _tables.decoded_escapes(), 256)
    copy_table(_path_ok, _tables.path_bytes_kept(), 256)
    copy_table(_path_escaped, _tables.path_escapes(), 256)
    for b in range(256):
        _path_work[b] = not _path_ok[b]
    byteset_init(&_path_work_set, _path_work)
    mark = _tables.AGENT_HEADER_MARK
    assert len(mark) == 1 and mark.isascii(), "the kernel looks for one ASCII byte"
    _agent_mark = ord(mark)
    if _dialect_tables == NULL:  # (a first call cut short may have made them)
        _dialect_tables = <DialectTables*>xmalloc(nd * sizeof(DialectTables))
        memset(_dialect_tables, 0, nd * sizeof(DialectTables))
        _not_plain_set = <ByteSet*>xmalloc(nd * sizeof(ByteSet))
        _pattern_attn_set = <ByteSet*>xmalloc(nd * sizeof(ByteSet))
    for d in range(nd):
        _init_dialect(d)
    for b in range(256):
        _hex_value[b] = int(chr(b), 16) if chr(b) in "0123456789abcdefABCDEF" else -1
    for b in range(256):  # asked of the rule's home: a body opening with any other byte
        _bom_start[b] = _bom_length(bytes((b,))) > 0  # skips none (Doc asks no further)
    PATTERN_GROWTH = _tables.pattern_growth()
    assert (2 * PATTERN_GROWTH + 1) * <uint64_t>NATIVE_MAX < 0xFFFFFFFFu, \
        "normalised patterns must stay addressable in 32 bits (see the top)"
    # a matcher node keeps its prefix's length in NODE_LEN_BITS bits (Node.lenf)
    assert PATTERN_GROWTH * <uint64_t>MAX_LINE <= NODE_LEN, "a prefix would not fit a Node"
    # and an Entry keeps a pattern's length and prefix length in ENTRY_LEN_BITS bits each
    assert PATTERN_GROWTH * <uint64_t>MAX_LINE <= ENTRY_LEN, "a pattern would not fit an Entry"


# what the kernel asks the pure core per input (robotrules._tables names each)
_key_class = _tables.key_class
_query_key = _tables.query_key
_native_pattern = _tables.native_pattern
_rfc_path = _tables.rfc_path
_bom_length = _tables.bom_length
# and what the native peer's slower surface asks (its text, group index)
_to_text = _tables.to_text
_build_index = _tables.build_index


cdef bint _ready = False


cdef int ready() except -1:
    """Read the tables off robotrules._tables, once, on first use (not at import: importing
    robotrules stays cheap)."""
    global _ready
    if not _ready:
        _init_tables()
        _ready = True
    return 0


cdef inline bint may_have_companion(const unsigned char* raw, Py_ssize_t n, bint allow
                                    ) noexcept:
    """robotrules._compile.may_have_companion: an allow rule holding the companion mark is
    never read as a plain prefix (nor by fast_entry)."""
    return allow and memmem(raw, n, PyBytes_AS_STRING(_COMPANION),
                            PyBytes_GET_SIZE(_COMPANION)) != NULL


cdef inline int dialect_code(str dialect) except -1:
    """The code of ``dialect`` (its place in robotrules._tables.CODES), ValueError for no
    dialect: the interned names are compared first (no Python call on the parse path)."""
    cdef int d
    for d in range(len(_NAMES)):
        if <PyObject*>dialect == <PyObject*>_NAMES[d]:
            return d
    return _NAMES.index(dialect)
