# Part of robotrules._native (see _native.pxd for the map): tokenize.pxi.
# The tokenizer: robotrules._tokenize.tokenize, byte for byte (scan, careful_line), in front of
# it a small memo of field names over the directive registry (classify; a name that is none of
# the registry's forms is settled without asking: maybe_directive), and tokenize() for the
# facade.

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


cdef inline unsigned char key_fold(unsigned char c, bint dashed) noexcept:
    """A field name's byte as robotrules._directives.classify_key compares it: lower-cased
    (ASCII), and ``dashed``, "-" for "_" and " "."""
    if dashed and (c == c'_' or c == c' '):
        return c'-'
    return ascii_lower(c)


cdef bint maybe_directive(const unsigned char* p, Py_ssize_t n, bint lenient) noexcept:
    """False when robotrules._directives.classify_key reads the field name ``p[:n]`` as
    UNKNOWN for certain: it is none of the names, and (read leniently) starts with none of
    the prefixes (robotrules._directives.key_forms)."""
    cdef Py_ssize_t i, m
    cdef const unsigned char* f
    for form in <tuple>_KEY_FORMS[0]:
        m = PyBytes_GET_SIZE(form)
        if m != n:
            continue
        f = <const unsigned char*>PyBytes_AS_STRING(form)
        i = 0
        while i < m and key_fold(p[i], True) == f[i]:
            i += 1
        if i == m:
            return True
    if lenient:
        for form in <tuple>_KEY_FORMS[1]:
            m = PyBytes_GET_SIZE(form)
            if m > n:
                continue
            f = <const unsigned char*>PyBytes_AS_STRING(form)
            i = 0
            while i < m and key_fold(p[i], False) == f[i]:
                i += 1
            if i == m:
                return True
    return False


cdef int classify(const unsigned char* p, Py_ssize_t n, bint lenient, bint* read_leniently
                  ) except -1:
    """Stream kind of the field name ``p[:n]`` (as written), memoised per distinct name."""
    cdef uint32_t h = 0
    cdef int slot = 0, probe = 0
    cdef KeySlot* s
    cdef int m = 1 if lenient else 0
    cdef unsigned char c0 = ascii_lower(p[0])
    cdef unsigned char c1 = ascii_lower(p[1]) if n > 1 else 0
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
    if maybe_directive(p, n, lenient):
        kind, lenient_read = _key_class(PyUnicode_DecodeLatin1(<const char*>p, n, NULL), lenient)
    else:
        kind = UNKNOWN_KIND  # none of the names or prefixes (robotrules._directives.key_forms)
        lenient_read = False
    read_leniently[0] = lenient_read
    if n <= KEY_MAX:
        s = &_keys[m][(slot + probe) & (KEY_SLOTS - 1)]  # the empty slot, or the 8th probed
        s.hash = h
        s.kind = kind
        s.lenient_read = lenient_read
        s.n = n
        memcpy(s.key, p, n)
    return kind


cdef struct FieldMemo:
    # the two field names scan read last, each with its kind and lenient reading: most
    # lines repeat the field of the line before, or of the one before that (Allow and
    # Disallow in turn); newest first
    const unsigned char* key[2]
    Py_ssize_t n[2]
    int kind[2]
    bint lenient[2]


cdef inline int field_kind(FieldMemo* f, const unsigned char* p, Py_ssize_t n, bint lenient,
                           bint* lenient_read) except -1:
    """classify(p[:n]), asked only for a field name that is neither of the last two."""
    cdef int kind
    if n == f.n[0] and same_bytes(p, f.key[0], n):
        lenient_read[0] = f.lenient[0]
        return f.kind[0]
    if n == f.n[1] and same_bytes(p, f.key[1], n):
        kind = f.kind[1]
        lenient_read[0] = f.lenient[1]
    else:
        kind = classify(p, n, lenient, lenient_read)
    f.key[1] = f.key[0]
    f.n[1] = f.n[0]
    f.kind[1] = f.kind[0]
    f.lenient[1] = f.lenient[0]
    f.key[0] = p
    f.n[0] = n
    f.kind[0] = kind
    f.lenient[0] = lenient_read[0]
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


cdef inline int emit(U32Vec* out, uint32_t head, uint32_t vstart, uint32_t vlen) except -1:
    """Append one directive (three words) to ``out``: one capacity check, three stores."""
    cdef uint32_t* w
    if out.n + 3 > out.cap:
        vec_reserve(out, 3)
    w = out.data + out.n
    w[0] = head
    w[1] = vstart
    w[2] = vlen
    out.n += 3
    return 0


cdef extern from *:
    """
    /* (ROBOTRULES_SSE2 and robotrules_ctz: memory.pxi) */
    /* The end of the line at t[pos]: the first LF (10) or CR (13) (-1: none before size),
       with the first ':' (58) and '#' (35) before it in *colon and *hash (-1: none), and
       in *nul whether a NUL (0) comes before it. Each byte is read once, sixteen at a time
       where SSE2 is there (it is on every x86-64) and simd is not 0, never past t[size - 1];
       byte by byte otherwise (the same answers: tests hold the two ways equal). */
    static inline Py_ssize_t robotrules_line_end(const unsigned char* t, Py_ssize_t size,
                                                 Py_ssize_t pos, Py_ssize_t* colon,
                                                 Py_ssize_t* hash, int* nul, int simd) {
        Py_ssize_t i = pos, c = -1, h = -1;
        unsigned z = 0;
    #ifdef ROBOTRULES_SSE2
        if (simd) {
        const __m128i lf_ = _mm_set1_epi8(10), cr_ = _mm_set1_epi8(13), zero = _mm_setzero_si128();
        const __m128i colon_ = _mm_set1_epi8(58), hash_ = _mm_set1_epi8(35);
        while (size - i >= 32) {  /* most lines end within 32 bytes: one round for them */
            __m128i v = _mm_loadu_si128((const __m128i*)(t + i));
            __m128i w = _mm_loadu_si128((const __m128i*)(t + i + 16));
            unsigned end = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, lf_), _mm_cmpeq_epi8(v, cr_)))
                | ((unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(w, lf_), _mm_cmpeq_epi8(w, cr_))) << 16);
            unsigned before = end ? (end & (0u - end)) - 1u : 0xFFFFFFFFu;  /* bits before it */
            unsigned mc = ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, colon_))
                | ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, colon_)) << 16)) & before;
            if (c < 0 && mc) c = i + robotrules_ctz(mc);
            if (_mm_movemask_epi8(_mm_or_si128(  /* '#' and NUL are rare: one test for both */
                    _mm_or_si128(_mm_cmpeq_epi8(v, hash_), _mm_cmpeq_epi8(v, zero)),
                    _mm_or_si128(_mm_cmpeq_epi8(w, hash_), _mm_cmpeq_epi8(w, zero))))) {
                unsigned mh = ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, hash_))
                    | ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, hash_)) << 16)) & before;
                z |= ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero))
                    | ((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, zero)) << 16)) & before;
                if (h < 0 && mh) h = i + robotrules_ctz(mh);
            }
            if (end) {
                *colon = c; *hash = h; *nul = z != 0;
                return i + robotrules_ctz(end);
            }
            i += 32;
        }
        while (size - i >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i*)(t + i));
            unsigned end = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, lf_), _mm_cmpeq_epi8(v, cr_)));
            unsigned before = end ? (end & (0u - end)) - 1u : 0xFFFFu;  /* bits before it */
            unsigned mc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, colon_)) & before;
            unsigned mh = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, hash_)) & before;
            z |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero)) & before;
            if (c < 0 && mc) c = i + robotrules_ctz(mc);
            if (h < 0 && mh) h = i + robotrules_ctz(mh);
            if (end) {
                *colon = c; *hash = h; *nul = z != 0;
                return i + robotrules_ctz(end);
            }
            i += 16;
        }
        }
    #endif
        for (; i < size; i++) {
            unsigned char b = t[i];
            if (b == 10 || b == 13) {
                *colon = c; *hash = h; *nul = z != 0;
                return i;
            }
            if (b == 58) { if (c < 0) c = i; }
            else if (b == 35) { if (h < 0) h = i; }
            else if (b == 0) z = 1;
        }
        *colon = c; *hash = h; *nul = z != 0;
        return -1;
    }
    """
    Py_ssize_t line_end "robotrules_line_end" (const unsigned char* t, Py_ssize_t size,
                                               Py_ssize_t pos, Py_ssize_t* colon,
                                               Py_ssize_t* hash, int* nul, int simd
                                               ) noexcept nogil


cdef extern from *:
    """
    /* The first blank (space, 32, or tab, 9) of p[i:end], or end: sixteen bytes at a time
       where SSE2 is there and simd is not 0, never past p[end - 1] (the words of a line with
       no colon). */
    static inline Py_ssize_t robotrules_blank_at(const unsigned char* p, Py_ssize_t i,
                                                 Py_ssize_t end, int simd) {
    #ifdef ROBOTRULES_SSE2
        const __m128i sp = _mm_set1_epi8(32), tab = _mm_set1_epi8(9);
        while (simd && end - i >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i*)(p + i));
            unsigned m = (unsigned)_mm_movemask_epi8(
                _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)));
            if (m) return i + robotrules_ctz(m);
            i += 16;
        }
    #endif
        while (i < end && p[i] != 32 && p[i] != 9) i++;
        return i;
    }
    """
    Py_ssize_t blank_at "robotrules_blank_at" (const unsigned char* p, Py_ssize_t i,
                                               Py_ssize_t end, int simd) noexcept nogil


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
        if _dialect_tables[d].legacy and h < 0:
            emit(out, <uint32_t>BLANK_KIND << KIND_SHIFT | lineno, start, 0)
        return 0
    colon = find(p + lead, e - lead, C_COLON)
    if colon < 0:
        sp = find(p + lead, e - lead, C_SPACE)
        tab = find(p + lead, e - lead, C_TAB)
        if tab >= 0 and (sp < 0 or tab < sp):
            sp = tab
        if sp < 0 or not _dialect_tables[d].lenient:
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
    kind = classify(p + lead, kend - lead, _dialect_tables[d].lenient, &lenient_read)
    emit(out, <uint32_t>kind << KIND_SHIFT | lineno, start + <uint32_t>vlead, <uint32_t>(e - vlead))
    return 0


cdef inline int odd_line(const unsigned char* p, Py_ssize_t n, Py_ssize_t colon,
                         Py_ssize_t hsh, bint longnul, uint32_t lineno, uint32_t start, int d,
                         U32Vec* out, U32Vec* odd, bint simd) except -1:
    """scan's line that is not a plain field line (``colon`` and ``hsh``: its first ':' and
    '#', -1 for none): very long, holding a NUL, a '#' before the ':' (careful_line), no
    colon (blank, a comment, or Google's "key value"), or a comment line."""
    cdef Py_ssize_t a, b, i
    if longnul or (colon >= 0 and hsh != 0):  # very long, NUL, or '#' before ':'
        if odd != NULL:
            vec_push(odd, start)
        careful_line(p, n, lineno, start, d, out)
    elif hsh != 0:  # no colon (a line starting with '#' is a comment)
        a = 0
        b = n if hsh < 0 else hsh
        strip_ws(p, &a, &b)
        if a == b:
            if _dialect_tables[d].legacy and hsh < 0:
                emit(out, <uint32_t>BLANK_KIND << KIND_SHIFT | lineno, start, 0)
            return 0
        if odd != NULL:
            vec_push(odd, start)
        # Google's "key value": one run of blanks inside (careful_line reads nothing else;
        # most such lines are prose or markup, settled here)
        i = blank_at(p, a, b, simd)
        if i < b:
            while i < b and (p[i] == C_SPACE or p[i] == C_TAB):
                i += 1
            if blank_at(p, i, b, simd) == b:
                careful_line(p, n, lineno, start, d, out)
    return 0


cdef inline void field_value(const unsigned char* p, Py_ssize_t n, Py_ssize_t colon,
                             Py_ssize_t hsh, Py_ssize_t* vs, Py_ssize_t* vl) noexcept nogil:
    """The value of a field line (its first ':' at ``colon``, ``hsh`` the first '#' or -1),
    stripped: ``p[vs:vs + vl]`` (one space after the colon and none at the end: read as it
    is)."""
    cdef Py_ssize_t end = n if hsh < 0 else hsh, i, b
    if (colon + 2 < n and p[colon + 1] == C_SPACE and not _ws[p[colon + 2]]
            and not _ws[p[end - 1]]):
        vs[0] = colon + 2
        vl[0] = end - colon - 2
        return
    i = colon + 1
    b = end
    strip_ws(p, &i, &b)
    vl[0] = b - i
    vs[0] = i if vl[0] else colon + 1


cdef int scan(const unsigned char* t, Py_ssize_t size, int d, U32Vec* out, U32Vec* odd
              ) except -1:
    """robotrules._tokenize.tokenize (without findings) over the Latin-1 text ``t``. CR and
    CRLF end lines too, as in robotrules._tokenize.to_text (offsets are then into ``t``)."""
    return scan_lines(t, size, d, out, odd, True)


cdef int scan_lines(const unsigned char* t, Py_ssize_t size, int d, U32Vec* out, U32Vec* odd,
                    bint simd) except -1:
    """scan, sixteen bytes a compare where SSE2 is there and ``simd``, else byte by byte (as
    on a CPU without SSE2: the same stream)."""
    cdef Py_ssize_t pos = 0, n, colon, hsh, eol, k0, k1, vs, vl
    cdef const unsigned char* p
    # each line is read once for its end (LF or CR), its first ':' and its first '#', and
    # whether it holds a NUL (line_end: linear for every line-end mix)
    cdef int nul
    cdef bint at_cr = False, longnul
    cdef FieldMemo fields
    cdef uint32_t lineno = 0
    cdef bint lenient = _dialect_tables[d].lenient, lenient_read
    cdef int kind
    fields.n[0] = fields.n[1] = -1
    if out.cap == 0:
        vec_reserve(out, 3 * (size // 32) + 48)  # about one directive per 32 bytes
    while True:
        eol = line_end(t, size, pos, &colon, &hsh, &nul, simd)
        n = (size - pos) if eol < 0 else eol - pos
        at_cr = eol >= 0 and t[eol] == C_CR
        if lineno < LINE_MASK:
            lineno += 1
        if colon >= 0:
            colon -= pos
        if hsh >= 0:
            hsh -= pos
        longnul = n > MAX_LINE or nul
        p = t + pos
        if colon < 0 or (0 <= hsh < colon) or longnul:
            odd_line(p, n, colon, hsh, longnul, lineno, <uint32_t>pos, d, out, odd, simd)
            k1 = k0 = 0  # (settled)
        else:
            k0 = 0
            k1 = colon
            strip_ws(p, &k0, &k1)
            if k1 == k0 and odd != NULL:  # no field name
                vec_push(odd, <uint32_t>pos)
        if k1 != k0:
            kind = field_kind(&fields, p + k0, k1 - k0, lenient, &lenient_read)
            if lenient_read and odd != NULL:
                vec_push(odd, <uint32_t>pos)
            field_value(p, n, colon, hsh, &vs, &vl)
            emit(out, <uint32_t>kind << KIND_SHIFT | lineno, <uint32_t>(pos + vs),
                 <uint32_t>vl)
        if eol < 0:
            break
        pos += n + 1
        if at_cr and pos < size and t[pos] == C_LF:
            pos += 1  # CRLF
    return 0


cdef inline const unsigned char* latin1_data(str text) except NULL:
    if PyUnicode_KIND(text) != 1:
        raise ValueError("the text must be Latin-1 (robotrules._tokenize.to_text)")
    return <const unsigned char*>PyUnicode_DATA(text)


def tokenize(text, dialect, *, bint simd=True):
    """``robotrules._tokenize.tokenize(text, dialect, odd=odd)``: the directive stream (an
    ``array('I')`` of ``(kind << 25 | line, vstart, vlen)``) and the noted line starts.
    ``simd=False`` reads the bytes one at a time, as on a CPU without SSE2 (the same
    answers: tests hold the two ways equal)."""
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
        scan_lines(t, PyUnicode_GET_LENGTH(text), dialect_code(dialect), &out, &odd, simd)
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
