# Part of robotrules._native (see _native.pxd for the map): urls.pxi.
# URLs: the path of a URL as robots.cc's GetPathParamsQuery reads it (path_span, as
# robotrules._url.path_of), and RFC 9309's normalisation of it (normal_path).

cdef Py_ssize_t normal_path(const unsigned char* p, Py_ssize_t n, unsigned char* out
                            ) noexcept nogil:
    """robotrules._url.rfc_normalize of the path ``p[:n]`` (UTF-8, as the URL's text encodes
    with surrogatepass) into ``out`` (room for ``3 * n``): each ``%XX`` of an unreserved
    character decoded, every other escape upper-cased, a '%' that starts no escape kept, the
    bytes the normaliser keeps kept, every other byte written as its own ``%XX`` (the
    tables, from robotrules._url). The length written, or -1 for a path holding a lone
    surrogate (``\\udc80`` reads as the byte 0x80 there: robotrules._url.rfc_path)."""
    cdef Py_ssize_t i = 0, o = 0
    cdef int k
    cdef unsigned char c
    while i < n:
        c = p[i]
        if _path_ok[c]:
            out[o] = c
            o += 1
            i += 1
            continue
        if c == C_PERCENT:
            k = escape_at(p, i, n, _decoded, out, &o)
            if k:
                i += k
                continue
            out[o] = c
            o += 1
        elif c == 0xED and i + 1 < n and p[i + 1] >= 0xA0:  # U+D800..U+DFFF: a surrogate
            return -1
        elif _path_escaped[c]:
            put_escape(out, &o, c)
        else:  # no such byte (robotrules._url.escaped_path_bytes asserts it)
            return -1
        i += 1
    return o


cdef extern from *:
    """
    /* The first '/', '?', ';' or '#' (47, 63, 59, 35: where a URL's authority ends) at or
       after u[i], or n: sixteen bytes a step where SSE2 is there (robotrules_line_end's). */
    static inline Py_ssize_t robotrules_authority_end(const unsigned char* u, Py_ssize_t i,
                                                      Py_ssize_t n) {
    #ifdef ROBOTRULES_SSE2
        const __m128i sl = _mm_set1_epi8(47), qu = _mm_set1_epi8(63);
        const __m128i se = _mm_set1_epi8(59), ha = _mm_set1_epi8(35);
        while (n - i >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i*)(u + i));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, sl), _mm_cmpeq_epi8(v, qu)),
                _mm_or_si128(_mm_cmpeq_epi8(v, se), _mm_cmpeq_epi8(v, ha))));
            if (m) return i + (Py_ssize_t)robotrules_ctz(m);
            i += 16;
        }
    #endif
        for (; i < n; i++) {
            unsigned char c = u[i];
            if (c == 47 || c == 63 || c == 59 || c == 35) return i;
        }
        return n;
    }
    """
    Py_ssize_t authority_end "robotrules_authority_end" (const unsigned char* u, Py_ssize_t i,
                                                          Py_ssize_t n) noexcept nogil


cdef inline Py_ssize_t first_of3(const unsigned char* u, Py_ssize_t n, Py_ssize_t start) noexcept:
    """The first of '/', '?', ';' at or after ``start``, or -1."""
    cdef Py_ssize_t i
    cdef unsigned char c
    for i in range(start, n):
        c = u[i]
        if c == C_SLASH or c == C_QUESTION or c == C_SEMICOLON:
            return i
    return -1


cdef inline void path_span(const unsigned char* u, Py_ssize_t n, Py_ssize_t* start,
                           Py_ssize_t* end, bint* slash, bint* work) noexcept:
    """robotrules._url.path_of: ``u[start:end]`` is the path, params and query of the URL
    (``slash``: a '/' goes in front), or ``start`` is -1 for "/" (robots.cc
    GetPathParamsQuery). ``work``, unless NULL (RFC 9309), gets whether the path holds a
    byte that needs normalising (_path_work), read in the same pass where it can be."""
    cdef Py_ssize_t i, search_start, early, proto, ps, h
    cdef const void* hit
    cdef int in_set = 0
    slash[0] = False
    if work != NULL:
        work[0] = False
    # the common http(s)://host/... form
    if n >= 7 and memcmp(u, b"http", 4) == 0 and (
            memcmp(u + 4, b"://", 3) == 0 or (n >= 8 and memcmp(u + 4, b"s://", 4) == 0)):
        i = authority_end(u, 7 if u[4] == C_COLON else 8, n)
        if i >= n or u[i] == C_HASH:
            start[0] = -1
            return
        start[0] = i
        if work != NULL:
            end[0] = hash_or_set(u, i, n, &_path_work_set, &in_set)
            work[0] = in_set != 0
        else:
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
    if work != NULL:
        work[0] = any_in(&_path_work_set, u + ps, end[0] - ps)
