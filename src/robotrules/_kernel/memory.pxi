# Part of robotrules._native (see _native.pxd for the map): memory.pxi.
# Memory: growable uint32 vectors (U32Vec), xmalloc, the open-addressing hash map (HashMap)
# and the hashes it and the literal index use; the byte helpers of the tokenizer, the
# compiler and the matcher (ascii_lower, same_bytes, cmp_bytes, find_bytes, any_marked:
# inline; common_prefix, eight bytes a step); the byte sets of the table-driven tests
# (ByteSet: any_in, hash_or_set, SSSE3 where the CPU has it, chosen once) and the SSE2
# switch the scanners share.

cdef int vec_reserve(U32Vec* v, Py_ssize_t extra) except -1:
    """Room for ``extra`` more words (the capacity doubles as needed; a borrowed buffer is
    left as it is and the words copied to one of the vector's own)."""
    cdef Py_ssize_t cap
    cdef uint32_t* grown
    if v.n + extra > v.cap:
        cap = v.cap * 2 if v.cap else 64
        while cap < v.n + extra:
            cap *= 2
        if v.borrowed:
            grown = <uint32_t*>xmalloc(cap * sizeof(uint32_t))
            memcpy(grown, v.data, v.n * sizeof(uint32_t))
            v.borrowed = False
        else:
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
    v.borrowed = False
    return 0


cdef inline void vec_borrow(U32Vec* v, uint32_t* data, Py_ssize_t cap) noexcept:
    """An empty ``v`` over ``cap`` words of another's buffer (a stack array, the room of a
    Build): never freed nor fitted here; a push past ``cap`` moves it to one of its own."""
    v.data = data
    v.n = 0
    v.cap = cap
    v.borrowed = True


cdef inline int vec_push(U32Vec* v, uint32_t x) except -1:
    if v.n == v.cap:
        vec_reserve(v, 1)
    v.data[v.n] = x
    v.n += 1
    return 0


cdef inline void vec_fit(U32Vec* v) noexcept:
    """Give back the capacity past ``v.n`` (for a vector kept with the parsed file; a
    realloc that fails leaves it as it was; a borrowed buffer is not the vector's to
    give)."""
    cdef uint32_t* fitted
    if v.cap > v.n and not v.borrowed:
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
    """Free ``v``'s buffer if it is its own, and leave it empty."""
    if not v.borrowed:
        PyMem_Free(v.data)
    v.data = NULL
    v.n = v.cap = 0
    v.borrowed = False


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
    # one block: the keys, then the values (map_free frees it through keys)
    h.keys = <uint64_t*>xmalloc(cap * (sizeof(uint64_t) + sizeof(uint32_t)))
    h.vals = <uint32_t*>(h.keys + cap)
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
    PyMem_Free(h.keys)  # the values too (map_init: one block)
    h.keys = NULL
    h.vals = NULL


cdef int add_entry(U32Vec* v, const Entry* e) except -1:
    """Append an Entry (ENTRY_WORDS words) to a vector of uint32 words."""
    if v.n + ENTRY_WORDS > v.cap:
        vec_reserve(v, ENTRY_WORDS)
    (<Entry*>(v.data + v.n))[0] = e[0]
    v.n += ENTRY_WORDS
    return 0


cdef inline unsigned char ascii_lower(unsigned char c) noexcept nogil:
    """``c`` with an ASCII capital lower-cased, every other byte as it is (field names, agent
    tokens and keys compare so: robotrules._token.ascii_lower)."""
    return c | ASCII_CASE if c'A' <= c <= c'Z' else c


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


cdef extern from *:
    """
    /* Whether the n bytes at a and b are equal: a byte loop for the short compares of the
       matcher (a rule's prefix against a path mostly differs in its first bytes), memcmp for
       longer ones. */
    static inline int robotrules_same(const unsigned char* a, const unsigned char* b,
                                      Py_ssize_t n) {
        if (n > 16) return memcmp(a, b, (size_t)n) == 0;
        if (n >= 8) {  /* the first eight and the last eight (they may overlap) */
            uint64_t x, y, u, v;
            memcpy(&x, a, 8); memcpy(&y, b, 8);
            memcpy(&u, a + n - 8, 8); memcpy(&v, b + n - 8, 8);
            return ((x ^ y) | (u ^ v)) == 0;
        }
        if (n >= 4) {
            uint32_t x, y, u, v;
            memcpy(&x, a, 4); memcpy(&y, b, 4);
            memcpy(&u, a + n - 4, 4); memcpy(&v, b + n - 4, 4);
            return ((x ^ y) | (u ^ v)) == 0;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            if (a[i] != b[i]) return 0;
        return 1;
    }
    /* The order of the bytes a[:an] and b[:bn] (-1, 0, 1), as memcmp and then the lengths
       order them: eight bytes a step (big-endian compares), memcmp past 64. */
    static inline int robotrules_cmp(const unsigned char* a, Py_ssize_t an,
                                     const unsigned char* b, Py_ssize_t bn) {
        Py_ssize_t m = an < bn ? an : bn, i = 0;
        if (m > 64) {
            int c = memcmp(a, b, (size_t)m);
            if (c) return c < 0 ? -1 : 1;
            return (an > bn) - (an < bn);
        }
        for (; m - i >= 8; i += 8) {
            uint64_t x = robotrules_be64(a + i), y = robotrules_be64(b + i);
            if (x != y) return x < y ? -1 : 1;
        }
        for (; i < m; i++)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
        return (an > bn) - (an < bn);
    }
    /* The first place of the m bytes at s in the n bytes at h, or NULL (memmem): on short
       haystacks each place of the first byte (libc's memchr, sixteen bytes or more a step:
       most searches find none) with the rest compared (at most 64 x 64 byte reads), on
       longer ones libc's memmem (linear whatever the bytes). */
    static inline const unsigned char* robotrules_find(const unsigned char* h, Py_ssize_t n,
                                                       const unsigned char* s, Py_ssize_t m) {
        if (m > n) return NULL;
        if (m == 1) return (const unsigned char*)memchr(h, s[0], (size_t)n);
        if (n > 64) return (const unsigned char*)memmem(h, (size_t)n, s, (size_t)m);
        const unsigned char* last = h + (n - m);  /* the last place the m bytes fit */
        while (h <= last) {
            h = (const unsigned char*)memchr(h, s[0], (size_t)(last - h + 1));
            if (h == NULL) return NULL;
            if (memcmp(h + 1, s + 1, (size_t)(m - 1)) == 0) return h;
            h++;
        }
        return NULL;
    }
    """
    bint same_bytes "robotrules_same" (const unsigned char* a, const unsigned char* b,
                                       Py_ssize_t n) noexcept nogil
    int cmp_bytes "robotrules_cmp" (const unsigned char* a, Py_ssize_t an,
                                    const unsigned char* b, Py_ssize_t bn) noexcept nogil
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


cdef extern from *:
    """
    #if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
    #  include <emmintrin.h>
    #  define ROBOTRULES_SSE2 1
    #endif
    /* The number of zero bits below the lowest one bit of v (v != 0). */
    static inline unsigned robotrules_ctz(unsigned v) {
    #if defined(__GNUC__) || defined(__clang__)
        return (unsigned)__builtin_ctz(v);
    #else
        unsigned n = 0;
        while (!(v & 1u)) { v >>= 1; n++; }
        return n;
    #endif
    }
    /* The length of the longest common prefix of a[:n] and b[:n]: eight bytes a step
       (the lowest differing byte of a little-endian word is its lowest set bit's), then
       byte by byte; nothing past n is read. */
    static inline Py_ssize_t robotrules_common_prefix(const unsigned char* a,
                                                      const unsigned char* b, Py_ssize_t n) {
        Py_ssize_t i = 0;
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && \
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        uint64_t x, y;
        while (i + 8 <= n) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return i + (Py_ssize_t)(__builtin_ctzll(x ^ y) >> 3);
            i += 8;
        }
    #endif
        while (i < n && a[i] == b[i])
            i++;
        return i;
    }
    /* A set of bytes for robotrules_any_in: its table (256 flags) and, where every byte above
       127 is in it, its nibble form for SSSE3: per low nibble, a bit per high nibble 0 to 7
       (the ASCII bytes with that low nibble in the set). */
    typedef struct {
        const uint8_t* tbl;
        uint8_t nib[16];
        int simd;
    } robotrules_byteset;

    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    #  include <tmmintrin.h>
    #  define ROBOTRULES_SSSE3 1
    /* The bytes of v in the set whose nibble form is nib, as a 16-bit mask: an ASCII byte
       looked up by two shuffles (its low nibble picks a row of bits, its high nibble the
       bit), a byte above 127 by its sign bit (every one is in such a set). */
    __attribute__((target("ssse3")))
    static inline unsigned robotrules_in_set_mask(__m128i v, __m128i nib) {
        const __m128i bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128,
                                          0, 0, 0, 0, 0, 0, 0, 0);
        const __m128i low4 = _mm_set1_epi8(15);
        __m128i in = _mm_and_si128(
            _mm_shuffle_epi8(nib, _mm_and_si128(v, low4)),
            _mm_shuffle_epi8(bit, _mm_and_si128(_mm_srli_epi16(v, 4), low4)));
        unsigned out = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(in, _mm_setzero_si128()));
        return (~out & 0xFFFFu) | (unsigned)_mm_movemask_epi8(v);
    }
    /* Sixteen bytes a step, the last step over the last sixteen (n >= 16). */
    __attribute__((target("ssse3")))
    static int robotrules_any_in_ssse3(const robotrules_byteset* s, const unsigned char* p,
                                       Py_ssize_t n) {
        const __m128i nib = _mm_loadu_si128((const __m128i*)s->nib);
        Py_ssize_t i = 0;
        for (;;) {
            if (i + 16 > n) i = n - 16;
            if (robotrules_in_set_mask(_mm_loadu_si128((const __m128i*)(p + i)), nib))
                return 1;
            if (i + 16 >= n) return 0;
            i += 16;
        }
    }
    /* robotrules_hash_or_set, sixteen bytes a step (n - i >= 16). */
    __attribute__((target("ssse3")))
    static Py_ssize_t robotrules_hash_or_set_ssse3(const unsigned char* u, Py_ssize_t i,
                                                   Py_ssize_t n, const robotrules_byteset* s,
                                                   int* in_set) {
        const __m128i nib = _mm_loadu_si128((const __m128i*)s->nib);
        const __m128i hash = _mm_set1_epi8(35);
        unsigned seen = 0;
        for (;;) {
            if (i + 16 > n) i = n - 16;  /* the last sixteen: the bytes before hold no '#' */
            __m128i v = _mm_loadu_si128((const __m128i*)(u + i));
            unsigned set = robotrules_in_set_mask(v, nib);
            unsigned h = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, hash));
            if (h) {
                seen |= set & ((h & (0u - h)) - 1u);
                *in_set = seen != 0;
                return i + (Py_ssize_t)robotrules_ctz(h);
            }
            seen |= set;
            if (i + 16 >= n) {
                *in_set = seen != 0;
                return n;
            }
            i += 16;
        }
    }
    #endif

    /* s from tbl: the nibble form used where the CPU has SSSE3 and every byte above 127 is
       in the set, the table alone elsewhere. */
    static void robotrules_byteset_init(robotrules_byteset* s, const uint8_t* tbl) {
        int c, high = 1;
        s->tbl = tbl;
        memset(s->nib, 0, 16);
        for (c = 0; c < 128; c++)
            if (tbl[c]) s->nib[c & 15] |= (uint8_t)(1u << (c >> 4));
        for (c = 128; c < 256; c++)
            if (!tbl[c]) high = 0;
        s->simd = 0;
    #ifdef ROBOTRULES_SSSE3
        s->simd = high && __builtin_cpu_supports("ssse3");
    #endif
    }

    /* The first '#' (35) at or after u[i] (n: none), and in *in_set whether a byte of the
       set s comes before it: one pass over a URL's path and query for RFC 9309. */
    static inline Py_ssize_t robotrules_hash_or_set(const unsigned char* u, Py_ssize_t i,
                                                    Py_ssize_t n, const robotrules_byteset* s,
                                                    int* in_set) {
        int seen = 0;
    #ifdef ROBOTRULES_SSSE3
        if (n - i >= 16 && s->simd) return robotrules_hash_or_set_ssse3(u, i, n, s, in_set);
    #endif
        for (; i < n && u[i] != 35; i++)
            seen |= s->tbl[u[i]];
        *in_set = seen != 0;
        return i;
    }

    /* Whether any of the n bytes at p is in the set s (robotrules_any_marked of its table). */
    static inline int robotrules_any_in(const robotrules_byteset* s, const unsigned char* p,
                                        Py_ssize_t n) {
    #ifdef ROBOTRULES_SSSE3
        if (n >= 16 && s->simd) return robotrules_any_in_ssse3(s, p, n);
    #endif
        return robotrules_any_marked(s->tbl, p, n);
    }
    """
    ctypedef struct ByteSet "robotrules_byteset":
        int simd
    void byteset_init "robotrules_byteset_init" (ByteSet* s, const uint8_t* tbl) noexcept nogil
    bint any_in "robotrules_any_in" (const ByteSet* s, const unsigned char* p,
                                     Py_ssize_t n) noexcept nogil
    Py_ssize_t hash_or_set "robotrules_hash_or_set" (const unsigned char* u, Py_ssize_t i,
                                                     Py_ssize_t n, const ByteSet* s,
                                                     int* in_set) noexcept nogil
    Py_ssize_t common_prefix "robotrules_common_prefix" (const unsigned char* a,
                                                         const unsigned char* b,
                                                         Py_ssize_t n) noexcept nogil


# the sets any_in reads (made by tables.pxi's _init_tables from its tables)
cdef ByteSet _path_work_set  # _path_work: a path holding one needs normal_path
cdef ByteSet* _not_plain_set = NULL  # DialectTables.not_plain, per dialect code (ready())
cdef ByteSet* _pattern_attn_set = NULL  # DialectTables.pattern_attn, per dialect code
