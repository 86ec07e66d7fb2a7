# Part of robotrules._native (see _native.pxd for the map): patterns.pxi.
# Patterns: a rule value's normal form as robotrules._match.Pattern reads it, in C where the
# dialect's normaliser allows (fast_entry) and through the pure reading otherwise (pattern_of);
# the normalised bodies of a file (Pats); pattern_form() for the tests.

cdef inline int hexval(unsigned char c) noexcept nogil:
    """A hex digit's value, -1 for any other byte."""
    return _hex_value[c]


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


cdef void pats_fit(Pats* pats) noexcept:
    """Give back the room past the bodies written (a realloc that fails changes nothing)."""
    cdef unsigned char* fitted
    if pats.cap > pats.n + 1 and pats.data != NULL:
        fitted = <unsigned char*>PyMem_Realloc(pats.data, pats.n + 1)
        if fitted != NULL:
            pats.data = fitted
            pats.cap = pats.n + 1


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


cdef inline bint value_needs(const unsigned char* raw, Py_ssize_t body, int d,
                             Py_ssize_t* high, Py_ssize_t* grow) noexcept:
    """What the value ``raw[:body]`` (its final '$' left out) needs for fast_entry: how many
    bytes above 127 (``high``) and the bytes its ASCII escapes add (``grow``); False when a
    byte needs the pure reading."""
    cdef const uint8_t* slow = _dialect_tables[d].pattern_slow
    cdef const uint8_t* encodes = _dialect_tables[d].pattern_encodes
    cdef Py_ssize_t i
    cdef unsigned char c
    high[0] = grow[0] = 0
    if any_in(&_pattern_attn_set[d], raw, body):  # (most values hold none of these)
        for i in range(body):  # what the value needs: bytes to escape, or the pure reading
            c = raw[i]
            if c >= 0x80:
                high[0] += 1
            elif encodes[c]:
                grow[0] += 2
            elif slow[c]:
                return False
    return True


cdef inline Py_ssize_t escape_value(const unsigned char* raw, Py_ssize_t i, Py_ssize_t body,
                                    int d, bint latin1, unsigned char* w, Py_ssize_t out
                                    ) noexcept:
    """The normal form of ``raw[i:body]`` written at ``w[out:]``: escapes decoded or
    upper-cased (a '%' that starts none is kept), the bytes the dialect escapes escaped;
    where ``w`` ends."""
    cdef const uint8_t* encodes = _dialect_tables[d].pattern_encodes
    cdef const uint8_t* decodes = _dialect_tables[d].pattern_decodes
    cdef unsigned char c
    cdef int k
    while i < body:
        c = raw[i]
        if c == C_PERCENT:
            k = escape_at(raw, i, body, decodes, w, &out)
            if k:
                i += k
                continue
        elif c >= 0x80:
            if latin1:  # the escapes of U+00XX's two UTF-8 bytes
                put_escape(w, &out, 0xC0 | (c >> 6))
                put_escape(w, &out, 0x80 | (c & 0x3F))
            else:
                put_escape(w, &out, c)
            i += 1
            continue
        elif encodes[c]:
            put_escape(w, &out, c)
            i += 1
            continue
        w[out] = c
        out += 1
        i += 1
    return out


cdef inline Py_ssize_t fold_stars(unsigned char* w, Py_ssize_t body, Py_ssize_t* plen,
                                  Py_ssize_t* stars, bint* anchored, bint* as_raw
                                  ) noexcept:
    """robotrules._match.Pattern over the normal form ``w[:body]``, in place: "**" is "*"
    (then not ``as_raw``), a trailing '*' matches any rest ("/a*" and "/a*$" are "/a": then
    not ``anchored``); the literal prefix's length (``plen``, -1: no '*') and the stars
    counted; the new length."""
    cdef Py_ssize_t i, out = 0
    plen[0] = -1
    stars[0] = 0
    if memchr(w, C_STAR, body) == NULL:
        out = body
    for i in range(out, body):
        if w[i] == C_STAR:
            if out and w[out - 1] == C_STAR:
                as_raw[0] = False
                continue
            if plen[0] < 0:
                plen[0] = out
            stars[0] += 1
        w[out] = w[i]
        out += 1
    if out and w[out - 1] == C_STAR:
        out -= 1
        stars[0] -= 1
        anchored[0] = False
        if stars[0] == 0:
            plen[0] = -1
    return out


cdef bint fast_entry(Entry* e, const unsigned char* raw, Py_ssize_t n, int d, bint allow,
                     uint32_t index, Pats* pats, uint32_t raw_off) except -1:
    """robotrules._match.Pattern of the normal form of a raw rule, in C: the bytes the
    dialect keeps, ``%XX`` escapes (decoded or upper-cased), the bytes it writes as escapes
    (robotrules._tables.pattern_escapes: ASCII ones as their own ``%XX``; above 127, as their
    own in a value that is UTF-8, else as the Latin-1 character's where the dialect reads it
    so); False when the rule needs the pure reading (robotrules._compile.native_pattern)
    instead (a byte none of those, Google's companion rule). Where the normal form is the raw
    value's own bytes (no escape, no "**") and ``raw_off`` is where the value is in the text
    (not RAW_ELSEWHERE), the entry points there and ``pats`` keeps nothing."""
    cdef Py_ssize_t body = n, out = 0, plen, stars, norm, grow, high
    cdef bint anchored = raw[n - 1] == C_DOLLAR
    cdef bint as_raw = raw_off != RAW_ELSEWHERE, latin1 = False
    cdef unsigned char* w
    if n > MAX_LINE:  # not a rule's value (pattern_form's, for tests): the pure reading
        return False
    if anchored:
        body = n - 1
    if not value_needs(raw, body, d, &high, &grow):
        return False
    if may_have_companion(raw, n, allow):
        return False  # Google's companion rule: the pure reading makes it
    if high:  # robotrules._url.pattern_text: a value that is not UTF-8 is read as Latin-1
        latin1 = _dialect_tables[d].latin1_high and not utf8_valid(raw, n)
        grow += high * (5 if latin1 else 2)
    w = pats_reserve(pats, body + grow)  # at most PATTERN_GROWTH * body: see the top
    if grow == 0 and memchr(raw, C_PERCENT, body) == NULL:
        memcpy(w, raw, body)
        out = body
    else:
        as_raw = False
        out = escape_value(raw, 0, body, d, latin1, w, 0)
    norm = out + anchored  # the priority: the normal form's length, final '$' included
    out = fold_stars(w, out, &plen, &stars, &anchored, &as_raw)
    # the same bytes as the value (a trailing '*' dropped at most): read where they are
    e.off = raw_off if as_raw else pats_commit(pats, out)
    e.len = <uint32_t>out  # out <= norm <= PATTERN_GROWTH * MAX_LINE <= ENTRY_LEN (ready)
    e.plen = <uint32_t>(out if plen < 0 else plen)
    e.prio = <uint32_t>norm if norm < MAX_PRIO else MAX_PRIO
    e.flags = <uint8_t>((PREFIX if stars == 0 and not anchored else EXACT if stars == 0
                         else STAR if stars == 1 else WILD)
                        | (F_ANCHORED if anchored else 0) | (F_ALLOW if allow else 0)
                        | (0 if as_raw else F_PATS))
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
    if not (0 <= plen <= size <= ENTRY_LEN and 0 <= prio and PREFIX <= kind <= WILD):
        raise OverflowError("a pattern form out of range")  # unreachable: see the top
    e.off = pats_add(pats, body)
    e.len = <uint32_t>size
    e.plen = <uint32_t>plen
    e.prio = <uint32_t>prio if prio < MAX_PRIO else MAX_PRIO
    e.flags = <uint8_t>(kind | (F_ANCHORED if form[2] else 0) | F_PATS)
    e.index = index
    return 0


cdef int pattern_entries(const RawRule* rule, const unsigned char* text, int d, Pats* pats,
                         uint32_t* memo, U32Vec* pool) except -1:
    """Read a non-plain rule into ``pool`` once per file (its entry, and its companion's),
    ``memo[rule.rid]`` pointing at them: every selection that holds the rule shares the
    normalised body in ``pats``, so what a file keeps does not grow with its agents. The
    pure reading is Python code, during which another compile of the same file may run and
    grow ``pool``: where this rule's entries go is read after it, not before."""
    cdef Entry e
    cdef uint32_t at
    cdef const unsigned char* raw = text + rule.vstart
    cdef bint allow = rule.allow
    if fast_entry(&e, raw, rule.vlen, d, allow, rule.index, pats, rule.vstart):
        at = <uint32_t>(pool.n // ENTRY_WORDS)  # < 2 * rules: see the top
        add_entry(pool, &e)
        memo[rule.rid] = at
        return 0
    main, comp = pattern_of(raw, rule.vlen, d, allow)
    # where the entries go is read only now: the pure reading runs Python code, in which
    # another thread (or a callback) may have compiled a selection and grown the pool
    at = <uint32_t>(pool.n // ENTRY_WORDS)
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


cdef inline void put_escape(unsigned char* out, Py_ssize_t* o, unsigned int b) noexcept nogil:
    """Write ``%XX`` (upper-case hex) for byte ``b`` at ``out[o]``."""
    out[o[0]] = C_PERCENT
    out[o[0] + 1] = _HEX[b >> 4]
    out[o[0] + 2] = _HEX[b & 15]
    o[0] += 3


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
        put_escape(out, o, v)
    return 3


cdef bint utf8_valid(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """Whether ``p[:n]`` is UTF-8 as Python's strict decoder reads it (RFC 3629: no overlong
    form, no surrogate, nothing past U+10FFFF, no sequence cut short)."""
    cdef Py_ssize_t i = 0, need, j
    cdef unsigned char c, lo, hi
    while i < n:
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        lo = 0x80
        hi = 0xBF
        if 0xC2 <= c <= 0xDF:
            need = 1
        elif 0xE0 <= c <= 0xEF:
            need = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            need = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return False
        if n - i <= need or not lo <= p[i + 1] <= hi:
            return False
        for j in range(i + 2, i + need + 1):
            if not 0x80 <= p[j] <= 0xBF:
                return False
        i += need + 1
    return True


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
                          0, &pats, RAW_ELSEWHERE):
            return None
        return ((<char*>pats.data)[e.off:e.off + e.len], e.flags & F_KIND,
                bool(e.flags & F_ANCHORED), e.plen, e.prio)
    finally:
        PyMem_Free(pats.data)
