# Part of robotrules._native (see _native.pxd for the map): urls.pxi.
# URLs: the path of a URL as robots.cc's GetPathParamsQuery reads it (path_span, as
# robotrules._url.path_of), and RFC 9309's escape normalisation where only escapes need work.

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
