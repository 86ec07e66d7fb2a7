# Part of robotrules._native (see _native.pxd for the map): memory.pxi.
# Memory: growable uint32 vectors (U32Vec), xmalloc, the open-addressing hash map (HashMap)
# and the hashes it and the literal index use; the byte helpers of the tokenizer, the
# compiler and the matcher (same_bytes, find_bytes, any_marked: C, inline).

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


cdef int vec_init(U32Vec* v, Py_ssize_t cap) except -1:
    """An empty ``v`` with room for exactly ``cap`` words (one at least)."""
    v.data = <uint32_t*>xmalloc((cap if cap > 0 else 1) * sizeof(uint32_t))
    v.n = 0
    v.cap = cap if cap > 0 else 1
    return 0


cdef inline int vec_push(U32Vec* v, uint32_t x) except -1:
    if v.n == v.cap:
        vec_reserve(v, 1)
    v.data[v.n] = x
    v.n += 1
    return 0


cdef inline void vec_fit(U32Vec* v) noexcept:
    """Give back the capacity past ``v.n`` (for a vector kept with the parsed file; a
    realloc that fails leaves it as it was)."""
    cdef uint32_t* fitted
    if v.cap > v.n:
        if v.n == 0:
            PyMem_Free(v.data)
            v.data = NULL
            v.cap = 0
            return
        fitted = <uint32_t*>PyMem_Realloc(v.data, v.n * sizeof(uint32_t))
        if fitted != NULL:
            v.data = fitted
            v.cap = v.n


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


cdef int add_entry(U32Vec* v, const Entry* e) except -1:
    """Append an Entry (ENTRY_WORDS words) to a vector of uint32 words."""
    if v.n + ENTRY_WORDS > v.cap:
        vec_reserve(v, ENTRY_WORDS)
    (<Entry*>(v.data + v.n))[0] = e[0]
    v.n += ENTRY_WORDS
    return 0


cdef extern from *:
    """
    /* Whether the n bytes at a and b are equal: a byte loop for the short compares of the
       matcher (a rule's prefix against a path mostly differs in its first bytes), memcmp for
       longer ones. */
    static inline int robotrules_same(const unsigned char* a, const unsigned char* b,
                                      Py_ssize_t n) {
        if (n > 16) return memcmp(a, b, (size_t)n) == 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    /* The first place of the m bytes at s in the n bytes at h, or NULL (memmem): on short
       haystacks a search for the first byte with the rest compared (at most 64 x 64 byte
       reads), on longer ones libc's memmem (linear whatever the bytes). */
    static inline const unsigned char* robotrules_find(const unsigned char* h, Py_ssize_t n,
                                                       const unsigned char* s, Py_ssize_t m) {
        if (m > n) return NULL;
        if (m == 1) return (const unsigned char*)memchr(h, s[0], (size_t)n);
        if (n > 64) return (const unsigned char*)memmem(h, (size_t)n, s, (size_t)m);
        for (Py_ssize_t i = 0; i + m <= n; i++) {
            if (h[i] != s[0]) continue;
            Py_ssize_t k = 1;
            while (k < m && h[i + k] == s[k]) k++;
            if (k == m) return h + i;
        }
        return NULL;
    }
    """
    bint same_bytes "robotrules_same" (const unsigned char* a, const unsigned char* b,
                                       Py_ssize_t n) noexcept nogil
    const unsigned char* find_bytes "robotrules_find" (const unsigned char* h, Py_ssize_t n,
                                                       const unsigned char* s, Py_ssize_t m
                                                       ) noexcept nogil


cdef extern from *:
    """
    /* Whether any of the n bytes at p is marked in the 256-entry table tbl: eight lookups
       at a time joined before one test (most calls read every byte: a branch per byte cost
       more than the lookups). */
    static inline int robotrules_any_marked(const uint8_t* tbl, const unsigned char* p,
                                            Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8)
            if (tbl[p[i]] | tbl[p[i + 1]] | tbl[p[i + 2]] | tbl[p[i + 3]] | tbl[p[i + 4]]
                    | tbl[p[i + 5]] | tbl[p[i + 6]] | tbl[p[i + 7]])
                return 1;
        for (; i < n; i++)
            if (tbl[p[i]]) return 1;
        return 0;
    }
    """
    bint any_marked "robotrules_any_marked" (const uint8_t* tbl, const unsigned char* p,
                                             Py_ssize_t n) noexcept nogil
