# Part of robotrules._native (see _native.pxd for the map): build.pxi.
# Building a matcher: the rules of a group selection, best first, filed under sorted literal
# prefixes with parent links, and the literal index of the rules that could match anywhere
# (robotrules._match's IndexedMatcher and _Literals, in C).

cdef void sort_entries(Entry* a, Py_ssize_t n) noexcept nogil:
    """Best first (by entry_key): quicksort (Hoare's partition around the middle element)
    with insertion sort for short runs, recursing on the smaller side (depth at most
    log2 n). Keys are unique but for a rule's companion, which answers as the rule does."""
    cdef Py_ssize_t i, j
    cdef Entry t
    cdef int64_t pivot
    while n > 16:
        pivot = entry_key(&a[(n - 1) >> 1])
        i = -1
        j = n
        while True:
            i += 1
            while entry_key(&a[i]) < pivot:
                i += 1
            j -= 1
            while pivot < entry_key(&a[j]):
                j -= 1
            if i >= j:
                break
            t = a[i]
            a[i] = a[j]
            a[j] = t
        if j + 1 < n - j - 1:
            sort_entries(a, j + 1)
            a += j + 1
            n -= j + 1
        else:
            sort_entries(a + j + 1, n - j - 1)
            n = j + 1
    sort_small(a, <uint32_t>n)


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


cdef inline uint64_t head8(const unsigned char* p, Py_ssize_t n) noexcept nogil:
    """The first eight bytes as a big-endian number, zero-padded."""
    cdef unsigned char w[8]
    if n >= 8:
        return robotrules_be64(p)
    memset(w, 0, 8)
    memcpy(w, p, n)
    return robotrules_be64(w)


cdef inline int cmp_prefix(const PrefixRef* x, const PrefixRef* y, const unsigned char* text,
                           const unsigned char* pats) noexcept nogil:
    """Prefix bytes (values hold no NUL, so zero padding orders a shorter prefix first),
    then entry index: the first sixteen bytes as two numbers (head, next8), the rest as
    bytes."""
    cdef int c
    if x.head != y.head:
        return -1 if x.head < y.head else 1
    if x.next8 != y.next8:
        return -1 if x.next8 < y.next8 else 1
    if x.len > 16 or y.len > 16:
        # sixteen equal bytes: both are at least that long (values hold no NUL)
        c = cmp_bytes(base_of(x.flags, text, pats) + x.off + 16, x.len - 16 if x.len > 16 else 0,
                      base_of(y.flags, text, pats) + y.off + 16, y.len - 16 if y.len > 16 else 0)
        if c:
            return c
    elif x.len != y.len:
        return -1 if x.len < y.len else 1
    return (x.entry > y.entry) - (x.entry < y.entry)


cdef inline bint same_prefix(const PrefixRef* a, const PrefixRef* b, const unsigned char* text,
                             const unsigned char* pats) noexcept nogil:
    return a.head == b.head and a.next8 == b.next8 and a.len == b.len and (
        a.len <= 16 or memcmp(base_of(a.flags, text, pats) + a.off + 16,
                              base_of(b.flags, text, pats) + b.off + 16, a.len - 16) == 0)


cdef void sort_refs(PrefixRef* a, Py_ssize_t n, const unsigned char* text,
                    const unsigned char* pats) noexcept nogil:
    """An insertion sort by cmp_prefix (the bytes they point at passed along: no global
    state), for the few refs order_refs gives it (16 at most)."""
    cdef Py_ssize_t i, j
    cdef PrefixRef t
    for i in range(1, n):
        t = a[i]
        j = i
        while j > 0 and cmp_prefix(&t, &a[j - 1], text, pats) < 0:
            a[j] = a[j - 1]
            j -= 1
        a[j] = t


cdef extern from *:
    """
    /* The place (0 = the most significant) of the first byte in which x is not zero (x != 0). */
    static inline int robotrules_first_byte(uint64_t x) {
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_clzll(x) >> 3;
    #else
        int k = 0;
        while (!(x & 0xFF00000000000000ull)) { x <<= 8; k++; }
        return k;
    #endif
    }
    """
    int first_byte "robotrules_first_byte" (uint64_t x) noexcept nogil


cdef int order_refs(PrefixRef* refs, Py_ssize_t n, const unsigned char* text,
                    const unsigned char* pats) except -1:
    """``refs`` in cmp_prefix order (as sort_refs leaves them): their numbers filed by
    file_refs (a comparison sort's mispredicted branches were most of a selection's
    compile), then the refs moved once into that order."""
    cdef RefFiling f
    cdef uint32_t few_idx[2 * SMALL_RULES]
    cdef uint64_t few_keys[2 * SMALL_RULES]
    cdef PrefixRef few[SMALL_RULES]
    cdef PrefixRef* out
    cdef void* block = NULL
    cdef Py_ssize_t i
    if n <= 16:
        sort_refs(refs, n, text, pats)
        return 0
    if n <= SMALL_RULES:
        f.idx = &few_idx[0]
        f.keys = &few_keys[0]
        out = &few[0]
    else:  # one block: the numbers and keys twice over (filed from one to the other), the refs
        block = xmalloc(n * (2 * sizeof(uint64_t) + 2 * sizeof(uint32_t) + sizeof(PrefixRef)))
        f.keys = <uint64_t*>block
        out = <PrefixRef*>(f.keys + 2 * n)
        f.idx = <uint32_t*>(out + n)
    f.tmp_idx = f.idx + n
    f.tmp_keys = f.keys + n
    f.refs = refs
    f.text = text
    f.pats = pats
    for i in range(n):
        f.idx[i] = <uint32_t>i
    file_refs(&f, 0, n, 0, False, 0)
    for i in range(n):
        out[i] = refs[f.idx[i]]
    memcpy(refs, out, n * sizeof(PrefixRef))
    PyMem_Free(block)
    return 0


cdef inline uint64_t ref_key(const PrefixRef* r, Py_ssize_t depth, const unsigned char* text,
                             const unsigned char* pats) noexcept nogil:
    """Eight bytes of ``r``'s prefix from ``depth`` (a multiple of eight) as a big-endian
    number, zero-padded (values hold no NUL: a shorter prefix files first): head and next8
    for the first sixteen, read from the prefix after them."""
    if depth == 0:
        return r.head
    if depth == 8:
        return r.next8
    if r.len <= depth:
        return 0
    return head8(base_of(r.flags, text, pats) + r.off + depth, r.len - depth)


cdef inline bint ref_before(const RefFiling* f, uint32_t x, uint32_t y) noexcept nogil:
    return cmp_prefix(&f.refs[x], &f.refs[y], f.text, f.pats) < 0


cdef void insert_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Put the few ref numbers ``f.idx[lo:hi]`` in cmp_prefix order: an insertion sort."""
    cdef Py_ssize_t i, j
    cdef uint32_t t
    cdef uint32_t* idx = f.idx
    for i in range(lo + 1, hi):
        t = idx[i]
        j = i
        while j > lo and ref_before(f, t, idx[j - 1]):
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = t


cdef void merge_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Put ``f.idx[lo:hi]`` in cmp_prefix order by a merge sort (``f.tmp_idx[lo:hi]`` its
    scratch): n log n comparisons whatever the prefixes, nesting log2 n deep."""
    cdef Py_ssize_t mid, i, j, k, m
    cdef uint32_t* idx = f.idx
    cdef uint32_t* tmp = f.tmp_idx
    if hi - lo <= 16:
        insert_refs(f, lo, hi)
        return
    mid = lo + ((hi - lo) >> 1)
    merge_refs(f, lo, mid)
    merge_refs(f, mid, hi)
    if not ref_before(f, idx[mid], idx[mid - 1]):
        return  # already in order
    memcpy(&tmp[lo], &idx[lo], (mid - lo) * sizeof(uint32_t))
    i = lo
    j = mid
    k = lo
    while i < mid and j < hi:
        if ref_before(f, idx[j], tmp[i]):  # the right one only when it sorts first: stable
            idx[k] = idx[j]
            j += 1
        else:
            idx[k] = tmp[i]
            i += 1
        k += 1
    m = mid - i
    if m > 0:
        memcpy(&idx[k], &tmp[i], m * sizeof(uint32_t))


cdef void file_buckets(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth,
                       int level, int shift, const uint32_t* ends) noexcept nogil:
    """After a filing pass (the numbers and keys in ``f.tmp_idx`` and ``f.tmp_keys``, bucket
    ``b`` ending at ``ends[b]``): move them back, then file each bucket of two or more again
    by its own first differing byte."""
    cdef Py_ssize_t at = lo, end
    memcpy(&f.idx[lo], &f.tmp_idx[lo], (hi - lo) * sizeof(uint32_t))
    memcpy(&f.keys[lo], &f.tmp_keys[lo], (hi - lo) * sizeof(uint64_t))
    while at < hi:  # each bucket, in order
        end = ends[(f.keys[at] >> shift) & 0xFF]
        if end - at > 1:
            file_refs(f, at, end, depth, True, level + 1)
        at = end


cdef void file_wide(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth, int level,
                    int shift) noexcept nogil:
    """file_refs' filing of many refs by the byte at ``shift`` of their keys: the two halves
    counted and placed side by side (the rules of one bucket often come in a run: two
    counters a step instead of one waiting on the last), the first half's first in each
    bucket."""
    cdef uint64_t* keys = f.keys
    cdef uint32_t* idx = f.idx
    cdef Py_ssize_t i, at, m = (hi - lo) >> 1, half, c1, c2
    cdef uint32_t b, b2, blo = 255, bhi = 0
    cdef uint64_t kt
    cdef uint32_t start[257]
    cdef uint32_t start2[257]
    half = hi - m  # [lo, half): the first half (one more when n is odd); [half, hi)
    memset(start, 0, sizeof(start))
    memset(start2, 0, sizeof(start2))
    if half - lo > m:
        b = <uint32_t>(keys[half - 1] >> shift) & 0xFF
        start[b + 1] += 1
        blo = bhi = b
    for i in range(m):  # how many of each byte, and the bytes used
        b = <uint32_t>(keys[lo + i] >> shift) & 0xFF
        b2 = <uint32_t>(keys[half + i] >> shift) & 0xFF
        start[b + 1] += 1
        start2[b2 + 1] += 1
        blo = b if b < blo else blo
        bhi = b if b > bhi else bhi
        blo = b2 if b2 < blo else blo
        bhi = b2 if b2 > bhi else bhi
    at = lo  # each bucket: the first half's place, then the second half's
    for b in range(blo, bhi + 1):
        c1 = start[b + 1]
        c2 = start2[b + 1]
        start[b] = <uint32_t>at
        start2[b] = <uint32_t>(at + c1)
        at += c1 + c2
    for i in range(m):
        kt = keys[lo + i]
        b = <uint32_t>(kt >> shift) & 0xFF
        f.tmp_idx[start[b]] = idx[lo + i]
        f.tmp_keys[start[b]] = kt
        start[b] += 1
        kt = keys[half + i]
        b2 = <uint32_t>(kt >> shift) & 0xFF
        f.tmp_idx[start2[b2]] = idx[half + i]
        f.tmp_keys[start2[b2]] = kt
        start2[b2] += 1
    if half - lo > m:
        kt = keys[half - 1]
        b = <uint32_t>(kt >> shift) & 0xFF
        f.tmp_idx[start[b]] = idx[half - 1]
        f.tmp_keys[start[b]] = kt
    file_buckets(f, lo, hi, depth, level, shift, start2)  # start2[b]: the end of bucket b


cdef void file_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth, bint keyed,
                    int level) noexcept nogil:
    """Put the ref numbers ``f.idx[lo:hi]`` in cmp_prefix order: filed by the first byte in
    which their prefixes differ (the eight bytes from ``depth`` on, ``f.keys`` holding them
    when ``keyed``, or later ones where those are the same in all: the bytes before it are
    the same in all, so the buckets come in order), each bucket of more than 16 filed again
    by its own first differing byte (a later one), the rest by an insertion sort. The rules
    of a robots.txt mostly share their first bytes ("/wp-", "/about/caltech-media/") and
    then differ, so few comparisons are made; the numbers and their keys move, not the
    refs. ``level`` counts the nested calls: past FILE_LEVELS (a long chain of prefixes, each
    a little longer than the last), merge_refs sorts the rest (the stack stays small, and
    the comparisons are n log n whatever the rules)."""
    cdef uint64_t diff
    cdef int shift
    cdef uint32_t start[257]
    if hi - lo <= 16:
        insert_refs(f, lo, hi)
        return
    if level > FILE_LEVELS:  # a long chain ("/a", "/aa", "/aaa", ...): n log n comparisons
        merge_refs(f, lo, hi)
        return
    diff = differing_keys(f, lo, hi, &depth, keyed)
    if diff == 0:  # the same prefix in all: by entry index
        merge_refs(f, lo, hi)
        return
    shift = 56 - 8 * first_byte(diff)
    if hi - lo >= FILE_SPLIT:
        file_wide(f, lo, hi, depth, level, shift)
        return
    file_by_byte(f, lo, hi, shift, start)
    file_buckets(f, lo, hi, depth, level, shift, start)  # start[b]: the end of bucket b


cdef inline uint64_t differing_keys(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi,
                                    Py_ssize_t* depth, bint keyed) noexcept nogil:
    """The first eight bytes, from ``depth`` on (moved to them), in which some prefixes of
    the refs ``f.idx[lo:hi]`` differ, as the OR of their keys' differences from the first
    (``f.keys``, made here unless ``keyed``); 0 where all are the same prefix."""
    cdef uint64_t first, diff
    cdef uint64_t* keys = f.keys
    cdef uint32_t* idx = f.idx
    cdef Py_ssize_t i, longest = 0
    while True:
        if not keyed:
            for i in range(lo, hi):
                keys[i] = ref_key(&f.refs[idx[i]], depth[0], f.text, f.pats)
        first = keys[lo]
        diff = 0
        for i in range(lo + 1, hi):
            diff |= keys[i] ^ first
        if diff != 0:
            return diff
        if longest == 0:
            for i in range(lo, hi):
                if f.refs[idx[i]].len > longest:
                    longest = f.refs[idx[i]].len
        depth[0] += 8
        keyed = False
        if depth[0] >= longest:
            return 0


cdef inline void file_by_byte(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, int shift,
                              uint32_t* start) noexcept nogil:
    """The refs ``f.idx[lo:hi]`` and their keys counted out by the key's byte at ``shift``
    into ``f.tmp_idx``/``f.tmp_keys``; ``start[b]`` (257 of them) the end of bucket ``b``."""
    cdef Py_ssize_t i
    cdef uint32_t b, blo = 255, bhi = 0
    cdef uint64_t kt
    memset(start, 0, 257 * sizeof(uint32_t))
    for i in range(lo, hi):  # how many of each byte, and the bytes used (path bytes span
        b = <uint32_t>(f.keys[i] >> shift) & 0xFF  # far fewer than 256 values)
        start[b + 1] += 1
        blo = b if b < blo else blo
        bhi = b if b > bhi else bhi
    start[blo] = <uint32_t>lo
    for b in range(blo, bhi + 1):
        start[b + 1] += start[b]
    for i in range(lo, hi):
        kt = f.keys[i]
        b = <uint32_t>(kt >> shift) & 0xFF
        f.tmp_idx[start[b]] = f.idx[i]
        f.tmp_keys[start[b]] = kt
        start[b] += 1


cdef inline int count_runs(HashMap* counts, const Entry* es, uint32_t first, uint32_t count,
                           const unsigned char* text, const unsigned char* pats) except -1:
    """How many rules of ``es[first : first + count]`` have each run of 1 to 4 bytes of their
    literals after the prefix, into ``counts`` (a run repeated in one rule counts again:
    close enough to rank them), over at most LIT_SAMPLE rules spread evenly."""
    cdef uint32_t k, e, step = count // LIT_SAMPLE + 1
    cdef Py_ssize_t i, j, x
    cdef int w
    cdef const unsigned char* pat
    cdef const void* hit
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
                    map_count(counts, window(pat + x, w))
            i = j + 1
    return 0


cdef inline bint rarest_run(const Entry* en, const unsigned char* text,
                            const unsigned char* pats, const HashMap* counts, uint64_t* chosen,
                            int* best_w) noexcept nogil:
    """The run of the rule ``en``'s literals after its prefix that the fewest rules share
    (``counts``), the widest on a tie, in ``chosen`` and its width in ``best_w``; False when
    it has no literal there ("/*$"-like: scanned)."""
    cdef uint32_t best_count = 0xFFFFFFFFu, c
    cdef Py_ssize_t i, j, x
    cdef int w
    cdef uint64_t key
    cdef const unsigned char* pat
    cdef const void* hit
    cdef bint any_lit = False
    if (en.flags & F_KIND) < STAR:
        return False
    pat = base_of(en.flags, text, pats) + en.off
    best_w[0] = 0
    chosen[0] = 0
    i = en.plen + 1
    while i <= en.len:
        hit = memchr(pat + i, C_STAR, en.len - i)
        j = en.len if hit == NULL else <const unsigned char*>hit - pat
        for w in range(4, 0, -1):
            for x in range(i, j - w + 1):
                key = window(pat + x, w)
                c = map_get(counts, key, 0)
                if c < best_count or (c == best_count and w > best_w[0]):
                    best_count = c
                    best_w[0] = w
                    chosen[0] = key
                    any_lit = True
        i = j + 1
    return any_lit


cdef inline int fill_buckets(LitIndex* li, const uint64_t* keys_of, uint32_t first,
                             uint32_t count, uint32_t nb) except -1:
    """Each bucket's members (``li.bstart``, ``li.members``), in entry order (each stays best
    first), from each rule's bucket (``keys_of``; all ones: none)."""
    cdef uint32_t k, b
    cdef uint32_t* fill = NULL
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
    for k in range(count):
        if keys_of[k] != 0xFFFFFFFFFFFFFFFFull:
            b = <uint32_t>keys_of[k]
            li.members[fill[b]] = first + k
            fill[b] += 1
    PyMem_Free(fill)
    return 0


cdef inline int key_heads(LitIndex* li) except -1:
    """From ``li.table``'s keys: the bucket of each one-byte key (``li.single``) and the
    two bytes that start a longer key (``li.pairs``); and the per-bucket stamps."""
    cdef uint32_t k, v
    cdef uint64_t key
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
    li.stamp = <uint32_t*>xmalloc((li.nbuckets + 1) * sizeof(uint32_t))
    memset(li.stamp, 0, (li.nbuckets + 1) * sizeof(uint32_t))
    return 0


cdef int lit_build(LitIndex* li, Entry* es, uint32_t first, uint32_t count,
                   const unsigned char* text, const unsigned char* pats) except -1:
    """Index best-first ``es[first : first + count]`` under the rarest run of 1 to 4 bytes of
    the literals after their prefix (every such literal occurs in a path the rule matches,
    so every run of its bytes does): the run the fewest rules share, the widest on a tie
    (robotrules._match._Literals, in C, with runs of three bytes too)."""
    cdef HashMap counts, buckets
    cdef uint32_t k, nb = 0
    cdef int best_w
    cdef uint64_t chosen
    cdef bint fresh
    cdef uint32_t* slot
    cdef uint64_t* keys_of = NULL
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
        count_runs(&counts, es, first, count, text, pats)
        map_init(&buckets, count + 1)
        for k in range(count):  # each rule takes its rarest run
            if not rarest_run(&es[first + k], text, pats, &counts, &chosen, &best_w):
                vec_push(&rest, first + k)  # no literal after the prefix: scanned
                keys_of[k] = 0xFFFFFFFFFFFFFFFFull
                continue
            li.widths |= 1 << (best_w - 1)
            slot = map_slot(&buckets, chosen, &fresh)
            if fresh:
                slot[0] = nb
                nb += 1
            keys_of[k] = slot[0]
        fill_buckets(li, keys_of, first, count, nb)
        li.table = buckets
        memset(&buckets, 0, sizeof(HashMap))
        key_heads(li)
        li.nrest = <uint32_t>rest.n
        li.rest = rest.data
        rest.data = NULL
    finally:
        map_free(&counts)
        map_free(&buckets)
        PyMem_Free(keys_of)
        vec_free(&rest)
    return 0


cdef inline bint same_body(const Entry* a, const Entry* b, const unsigned char* text,
                           const unsigned char* pats) noexcept nogil:
    return (a.len == b.len and (a.flags & (F_KIND | F_ANCHORED)) == (b.flags & (F_KIND | F_ANCHORED))
            and memcmp(base_of(a.flags, text, pats) + a.off, base_of(b.flags, text, pats) + b.off,
                       a.len) == 0)


cdef inline int read_rule(const RawRule* rule, const unsigned char* text, int d, Pats* pats,
                          uint32_t** memo_at, uint32_t nmemo, U32Vec* pool, Entry* out
                          ) except -1:
    """One rule's entries in ``out`` (compile_rules' first phase, and Doc._scan's reading of a
    selection not compiled): READ_NONE for an empty value (it never decides), READ_PLAIN for
    a plain prefix (read where it is in the text), else READ_ONE or READ_PAIR (its entry,
    and its companion's) from the file's pool: its pattern read once per file
    (pattern_entries; ``memo_at`` holds the memo of ``nmemo`` rules, made here when the first
    rule that is not a plain prefix needs it)."""
    cdef uint32_t n = rule.vlen, at
    cdef uint32_t* memo
    cdef const unsigned char* raw
    if n == 0:
        return READ_NONE
    raw = text + rule.vstart
    if not any_in(&_not_plain_set[d], raw, n) and not may_have_companion(raw, n, rule.allow):
        out.off = rule.vstart
        out.len = n  # a raw value: at most MAX_LINE bytes
        out.plen = n
        out.prio = n
        out.flags = PREFIX | (F_ALLOW if rule.allow else 0)
        out.index = rule.index
        return READ_PLAIN
    memo = memo_at[0]
    if memo == NULL:  # the file's first rule to read: its memo, none read yet
        memo = <uint32_t*>xmalloc(nmemo * sizeof(uint32_t))
        memset(memo, 0xFF, nmemo * sizeof(uint32_t))  # MEMO_NONE
        memo_at[0] = memo
    if memo[rule.rid] == MEMO_NONE:
        pattern_entries(rule, text, d, pats, memo, pool)
    at = memo[rule.rid]  # pool.data read after the call (it may have grown)
    out[0] = (<Entry*>pool.data)[at & ~MEMO_PAIR]
    if at & MEMO_PAIR:
        out[1] = (<Entry*>pool.data)[(at & ~MEMO_PAIR) + 1]
        return READ_PAIR
    return READ_ONE


cdef uint32_t dedupe_others(Entry* es, uint32_t n, const unsigned char* text,
                            const unsigned char* pats) except? 0xFFFFFFFFu:
    """compile_rules' second phase: of the other rules that match exactly the same paths, only
    the best can decide. ``es[:n]`` sorted best first and cut to the first of each body (a few
    compared with those kept before them, many found by a hash of their bodies); the count
    kept."""
    cdef uint32_t k, j, kept
    cdef HashMap seen
    cdef bint fresh
    cdef uint32_t* slot
    cdef uint64_t h
    if n <= 1:
        return n
    sort_entries(es, n)
    kept = 0
    if n <= LINEAR_MAX:
        for k in range(n):
            for j in range(kept):
                if same_body(&es[j], &es[k], text, pats):
                    break
            else:
                es[kept] = es[k]
                kept += 1
        return kept
    memset(&seen, 0, sizeof(HashMap))
    try:
        map_init(&seen, n)
        for k in range(n):
            h = hash_bytes(base_of(es[k].flags, text, pats) + es[k].off, es[k].len) ^ (
                (es[k].flags & (F_KIND | F_ANCHORED)) * 0x01000193u)
            slot = map_slot(&seen, h, &fresh)
            if not fresh and same_body(&es[slot[0]], &es[k], text, pats):
                continue
            if fresh:
                slot[0] = kept
            es[kept] = es[k]
            kept += 1
    finally:
        map_free(&seen)
    return kept


cdef uint32_t prefix_refs(PrefixRef* refs, const Entry* plains, uint32_t nplain,
                          const Entry* es, uint32_t nother, const unsigned char* text,
                          const unsigned char* pats) noexcept nogil:
    """compile_rules' third phase (an indexed matcher): a ref per plain rule, and per other
    rule whose pattern is a plain prefix or whose literal prefix has two bytes, with the first
    sixteen bytes it is filed by; the count made."""
    cdef uint32_t k, nref = 0
    cdef PrefixRef* r
    cdef const unsigned char* raw
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
        raw = base_of(refs[k].flags, text, pats) + refs[k].off
        refs[k].head = head8(raw, refs[k].len)
        refs[k].next8 = head8(raw + 8, refs[k].len - 8) if refs[k].len > 8 else 0
    return nref


cdef uint32_t make_nodes(Node* nodes, const PrefixRef* refs, uint32_t nref,
                         const unsigned char* text, const unsigned char* pats
                         ) noexcept nogil:
    """compile_rules' fourth phase: one node per distinct prefix of the ordered ``refs``,
    holding the best plain rule with exactly that prefix (lengths are equal: allow first, then
    the earliest line); the count made."""
    cdef uint32_t i = 0, k, count = 0
    cdef Node* nd
    cdef uint8_t flags
    while i < nref:
        nd = &nodes[count]
        nd.off = refs[i].off
        flags = refs[i].flags & F_PATS
        nd.plain = NO_PLAIN
        nd.parent = -1
        k = i
        while k < nref and same_prefix(&refs[k], &refs[i], text, pats):
            if refs[k].entry == 0xFFFFFFFFu:
                if (nd.plain == NO_PLAIN or
                        ((refs[k].flags & F_ALLOW) and not (flags & F_ALLOW)) or
                        ((refs[k].flags & F_ALLOW) == (flags & F_ALLOW)
                         and refs[k].plain < nd.plain)):
                    nd.plain = refs[k].plain
                    flags = (flags & F_PATS) | (refs[k].flags & F_ALLOW)
            k += 1
        nd.lenf = refs[i].len | (<uint32_t>flags << NODE_LEN_BITS)
        count += 1
        i = k
    return count


cdef void link_parents(Matcher* m, const unsigned char* text, const unsigned char* pats
                       ) noexcept nogil:
    """compile_rules' sixth phase: each node's parent, the longest other prefix that is a
    prefix of it (as robotrules._match.IndexedMatcher)."""
    cdef uint32_t k
    cdef int32_t parent
    for k in range(1, m.nnodes):
        if _starts(&m.nodes[k], &m.nodes[k - 1], text, pats):
            m.nodes[k].parent = k - 1
        else:
            parent = m.nodes[k - 1].parent
            while parent >= 0 and not _starts(&m.nodes[k], &m.nodes[parent], text, pats):
                parent = m.nodes[parent].parent
            m.nodes[k].parent = parent


cdef int mark_long_lists(Matcher* m) except -1:
    """compile_rules' last phase: big lists of wildcard rules get a literal index, built when
    a query needs it (see matcher_best)."""
    cdef uint32_t k, i, special, always
    for k in range(m.nnodes if m.specials != NULL else 0):
        special = m.specials[k]
        always = m.specials[k + 1]
        if always - special > LIT_MIN:
            if m.node_lits == NULL:  # the first long list: every node gets its state
                m.node_lits = <NodeLit*>xmalloc(m.nnodes * sizeof(NodeLit))
                for i in range(m.nnodes):
                    m.node_lits[i].lit = LIT_NONE
                    m.node_lits[i].scans = 0
            m.node_lits[k].lit = LIT_LATER
    if m.nentries - m.always > LIT_MIN:
        m.lit = LIT_LATER
    return 0


cdef inline int read_rules(const RawRule* rules, uint32_t count, const unsigned char* text,
                           int d, Pats* pats, uint32_t** memo_at, uint32_t nmemo, U32Vec* pool,
                           Entry* plains, uint32_t* nplain, Entry* es, uint32_t* nother
                           ) except -1:
    """compile_rules' first phase: each rule's entries (read_rule), the plain prefixes into
    ``plains[:nplain]``, the others (and their companions) into ``es[:nother]`` (room for
    one and two a rule)."""
    cdef Entry pair[2]
    cdef int got
    cdef uint32_t k
    nplain[0] = nother[0] = 0
    for k in range(count):
        got = read_rule(&rules[k], text, d, pats, memo_at, nmemo, pool, pair)
        if got == READ_PLAIN:
            plains[nplain[0]] = pair[0]
            nplain[0] += 1
        elif got != READ_NONE:
            es[nother[0]] = pair[0]
            nother[0] += 1
            if got == READ_PAIR:
                es[nother[0]] = pair[1]
                nother[0] += 1
    return 0


cdef inline int fit_nodes(Matcher* m, const Node* few_nodes, uint32_t nref) except -1:
    """The matcher's nodes at their size: copied out of ``few_nodes`` (the caller's stack),
    or the room past them given back (one node per distinct prefix, of ``nref``)."""
    cdef Node* nodes
    if m.nodes == few_nodes:
        m.nodes = NULL  # (the stack is no matcher's: nothing kept if the copy fails)
        nodes = <Node*>xmalloc(m.nnodes * sizeof(Node))
        memcpy(nodes, few_nodes, m.nnodes * sizeof(Node))
        m.nodes = nodes
    elif m.nnodes < nref:
        nodes = <Node*>PyMem_Realloc(m.nodes, m.nnodes * sizeof(Node))
        if nodes != NULL:
            m.nodes = nodes
    return 0


cdef inline int one_list(Matcher* m, const Entry* plains, uint32_t nplain, const Entry* es,
                         uint32_t nother) except -1:
    """A small matcher: every entry (``plains`` and ``es``) in one best-first list, at its
    size."""
    cdef uint32_t n = nplain + nother
    m.entries = <Entry*>xmalloc(n * sizeof(Entry))
    memcpy(m.entries, plains, nplain * sizeof(Entry))
    memcpy(m.entries + nplain, es, nother * sizeof(Entry))
    m.nentries = n
    sort_small(m.entries, n)
    return 0


cdef int compile_rules(Matcher* m, const RawRule* rules, uint32_t count,
                       const unsigned char* text, int d, Pats* pats, uint32_t** memo_at,
                       uint32_t nmemo, U32Vec* pool) except -1:
    """Compile ``rules`` (of the selected groups) into ``m``, in phases: each rule's entries
    (read_rule: plain prefixes apart), the other rules cut to one per body (dedupe_others);
    a few rules make one best-first list; more are indexed: their prefixes (prefix_refs),
    ordered (order_refs), one node per distinct prefix (make_nodes), the nodes' other rules
    (_place_specials), the parents (link_parents), the long lists marked for a literal index
    (mark_long_lists). A small group's buffers are on the stack; what the matcher keeps is
    copied out at its size."""
    cdef Entry few[SMALL_RULES + 1]  # a small group's other entries, on the stack
    cdef Entry few_plain[SMALL_RULES]  # and its plain ones
    cdef PrefixRef few_refs[SMALL_RULES]  # and its prefixes when indexed
    cdef Node few_nodes[SMALL_RULES]
    cdef Entry* es = NULL
    cdef Entry* plains = NULL
    cdef uint32_t nplain, nother, nref
    cdef PrefixRef* refs = NULL
    memset(m, 0, sizeof(Matcher))
    m.lit = LIT_NONE
    try:
        # room for every rule up front (a rule adds one plain entry, or one other and maybe
        # its companion: stored without a check)
        plains = (&few_plain[0] if count <= SMALL_RULES  # not freed below (see the finally)
                  else <Entry*>xmalloc(count * sizeof(Entry)))
        es = (&few[0] if 2 * count + 1 <= SMALL_RULES + 1
              else <Entry*>xmalloc((2 * count + 1) * sizeof(Entry)))
        read_rules(rules, count, text, d, pats, memo_at, nmemo, pool, plains, &nplain, es,
                   &nother)
        nother = dedupe_others(es, nother, text, pats.data)
        if nplain + nother <= LINEAR_MAX:  # small: every rule in one best-first list
            return one_list(m, plains, nplain, es, nother)
        # indexed: plain rules by prefix, and the others when their prefix has two bytes
        m.indexed = 1
        if nplain + nother <= SMALL_RULES:
            refs = &few_refs[0]  # not freed below (see the finally)
        else:
            refs = <PrefixRef*>xmalloc((nplain + nother) * sizeof(PrefixRef))
        nref = prefix_refs(refs, plains, nplain, es, nother, text, pats.data)
        order_refs(refs, nref, text, pats.data)
        # nodes: one per distinct prefix (a few built on the stack, then copied out)
        m.nodes = &few_nodes[0] if nref <= SMALL_RULES else <Node*>xmalloc(nref * sizeof(Node))
        m.nnodes = make_nodes(m.nodes, refs, nref, text, pats.data)
        fit_nodes(m, few_nodes, nref)
        # the nodes' other rules, best first per node, then the "always" ones (none: most)
        if nother:
            m.entries = <Entry*>xmalloc(nother * sizeof(Entry))
            _place_specials(m, es, nother, refs, nref, text, pats.data)
        link_parents(m, text, pats.data)
        mark_long_lists(m)
    finally:
        if plains != &few_plain[0]:
            PyMem_Free(plains)
        if es != &few[0]:
            PyMem_Free(es)
        if refs != &few_refs[0]:
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


cdef inline uint32_t node_len(const Node* nd) noexcept nogil:
    """The length of a node's prefix."""
    return nd.lenf & NODE_LEN


cdef inline uint8_t node_flags(const Node* nd) noexcept nogil:
    """A node's flags: F_ALLOW of its plain rule, F_PATS where its prefix is."""
    return <uint8_t>(nd.lenf >> NODE_LEN_BITS)


cdef inline bint _starts(const Node* a, const Node* b, const unsigned char* text,
                         const unsigned char* pats) noexcept nogil:
    """Whether node ``a``'s prefix starts with node ``b``'s."""
    return node_len(b) <= node_len(a) and memcmp(
        base_of(node_flags(a), text, pats) + a.off, base_of(node_flags(b), text, pats) + b.off,
        node_len(b)) == 0


cdef int _place_specials(Matcher* m, Entry* es, uint32_t n, PrefixRef* refs, uint32_t nref,
                         const unsigned char* text, const unsigned char* pats) except -1:
    """Copy the non-plain entries into ``m.entries`` grouped by node (best first within a
    node, as ``refs`` is sorted by prefix, then entry index), then the "always" ones; where
    they start per node in ``m.specials``, kept only when some node has any."""
    cdef uint32_t i = 0, k, j = 0, node = 0
    cdef uint8_t few[SMALL_RULES * 4]
    cdef uint8_t* placed = &few[0] if n <= SMALL_RULES * 4 else <uint8_t*>xmalloc(n)
    memset(placed, 0, n)
    try:
        m.specials = <uint32_t*>xmalloc((m.nnodes + 1) * sizeof(uint32_t))
        while i < nref:
            # refs[i] starts the run of node ``node``
            m.specials[node] = j
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
        m.specials[m.nnodes] = j
        if j == 0:  # no node has other rules
            PyMem_Free(m.specials)
            m.specials = NULL
        for k in range(n):
            if not plain_node(&es[k]) and not placed[k]:
                m.entries[j] = es[k]
                j += 1
        m.nentries = j
    finally:
        if placed != &few[0]:
            PyMem_Free(placed)
