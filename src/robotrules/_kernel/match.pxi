# Part of robotrules._native (see _native.pxd for the map): match.pxi.
# Matching: the best rule of a compiled matcher for a path (matcher_best), by scan, by prefix
# bisection and parent links, and through the literal indexes.

cdef inline int64_t entry_key(const Entry* e) noexcept nogil:
    return ((RANKS - (2 * <int64_t>e.prio + ((e.flags & F_ALLOW) != 0))) << INDEX_BITS) + e.index


cdef inline const unsigned char* base_of(uint8_t flags, const unsigned char* text,
                                         const unsigned char* pats) noexcept nogil:
    return pats if flags & F_PATS else text


cdef inline bint entry_matches(const Entry* e, const unsigned char* path, Py_ssize_t n,
                               const unsigned char* text, const unsigned char* pats
                               ) noexcept nogil:
    cdef const unsigned char* pat = base_of(e.flags, text, pats) + e.off
    cdef Py_ssize_t plen = e.plen, blen = e.len, pos, i, j, seglen
    cdef int kind = e.flags & F_KIND
    cdef const void* hit
    if plen > n or not same_bytes(path, pat, plen):
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
                return n - seglen >= pos and same_bytes(path + n - seglen, pat + i, seglen)
            if seglen == 0:
                return True
            return find_bytes(path + pos, n - pos, pat + i, seglen) != NULL
        if seglen:
            hit = find_bytes(path + pos, n - pos, pat + i, seglen)
            if hit == NULL:
                return False
            pos = <const unsigned char*>hit - path + seglen
        i = j + 1


cdef inline int64_t scan_entries(const Entry* es, uint32_t count, const unsigned char* path,
                                 Py_ssize_t n, int64_t best, const unsigned char* text,
                                 const unsigned char* pats) noexcept nogil:
    """The key of the first of best-first ``es`` that matches and beats ``best``: a plain
    prefix compared here (most rules), the others by entry_matches."""
    cdef uint32_t k
    cdef const Entry* e
    cdef bint beaten = best != NO_MATCH  # else every key beats it: none computed
    for k in range(count):
        e = &es[k]
        if beaten and entry_key(e) >= best:
            return best
        if e.plen > n:
            continue
        if (e.flags & F_KIND) == PREFIX:
            if same_bytes(path, base_of(e.flags, text, pats) + e.off, e.plen):
                return entry_key(e)
        elif entry_matches(e, path, n, text, pats):
            return entry_key(e)
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


cdef inline const unsigned char* node_prefix(const Matcher* m, int32_t k, uint32_t* len,
                                             uint8_t* flags, const unsigned char* text,
                                             const unsigned char* pats) noexcept nogil:
    """Node ``k``'s prefix (its bytes, its length and flags), from a Node or a Node8."""
    cdef const Node8* n8
    cdef const Node* nd
    if m.narrow:
        n8 = &(<const Node8*>m.nodes)[k]
        len[0] = n8.lenf & NODE8_LEN
        flags[0] = <uint8_t>((n8.lenf >> NODE8_FLAG_SHIFT) & (F_ALLOW | F_PATS))
        return base_of(flags[0], text, pats) + n8.off
    nd = &m.nodes[k]
    len[0] = node_len(nd)
    flags[0] = node_flags(nd)
    return base_of(flags[0], text, pats) + nd.off


cdef inline int32_t node_parent(const Matcher* m, int32_t k) noexcept nogil:
    if m.narrow:
        return (<const Node8*>m.nodes)[k].parent
    return m.nodes[k].parent


cdef inline uint32_t node_plain(const Matcher* m, int32_t k) noexcept nogil:
    cdef uint16_t p
    if m.narrow:
        p = (<const Node8*>m.nodes)[k].plain
        return NO_PLAIN if p == NO_PLAIN8 else p
    return m.nodes[k].plain


cdef int64_t matcher_best(Matcher* m, const unsigned char* path, Py_ssize_t n,
                          const unsigned char* text, const unsigned char* pats) noexcept nogil:
    cdef int64_t best = NO_MATCH, key
    cdef Py_ssize_t lo, hi, mid
    cdef int32_t k
    cdef uint32_t plain, len
    cdef uint8_t flags
    cdef const unsigned char* pre
    cdef int32_t no_lit = LIT_NONE
    cdef uint8_t no_scans = 0
    cdef int32_t* lit
    cdef uint8_t* scans
    if not m.indexed:
        return scan_entries(m.entries, m.nentries, path, n, best, text, pats)
    # bisect_right over the sorted prefixes, minus one
    lo = 0
    hi = m.nnodes
    while lo < hi:
        mid = (lo + hi) >> 1
        pre = node_prefix(m, <int32_t>mid, &len, &flags, text, pats)
        if cmp_bytes(path, n, pre, len) < 0:
            hi = mid
        else:
            lo = mid + 1
    k = <int32_t>lo - 1
    while k >= 0:
        pre = node_prefix(m, k, &len, &flags, text, pats)
        if len <= n and same_bytes(path, pre, len):
            break
        k = node_parent(m, k)
    while k >= 0:  # every link from here on is a prefix of the path
        plain = node_plain(m, k)
        if plain != NO_PLAIN:
            node_prefix(m, k, &len, &flags, text, pats)
            key = ((RANKS - (2 * <int64_t>len + ((flags & F_ALLOW) != 0)))
                   << INDEX_BITS) + plain
            if key < best:
                best = key
        if m.specials != NULL:  # the node's other rules
            if m.node_lits != NULL:
                lit = &m.node_lits[k].lit
                scans = &m.node_lits[k].scans
            else:  # no list long enough for an index: scanned (list_best leaves LIT_NONE be)
                lit = &no_lit
                scans = &no_scans
            best = list_best(m, lit, scans, m.specials[k], m.specials[k + 1], path, n, best,
                             text, pats)
            if best == NEED_INDEX:
                return NEED_INDEX
        k = node_parent(m, k)
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
    for k in range(m.nnodes if m.node_lits != NULL else 0):
        if m.node_lits[k].lit == LIT_WANTED:
            special = m.specials[k]  # a node_lits entry is wanted only where specials are
            end = m.specials[k + 1]
            m.node_lits[k].lit = _add_lit(m, special, end - special, text, pats)
    if m.lit == LIT_WANTED:
        m.lit = _add_lit(m, m.always, m.nentries - m.always, text, pats)
    return 0


cdef Matcher* matcher_block(Matcher* m) noexcept:
    """The matcher ``m`` as a selection keeps it: one block, sized exactly, holding the
    struct, then its entries, nodes and where each node's other rules start (``m``'s own
    arrays of those are freed); its literal indexes stay apart (made later, on demand).
    NULL when memory is short (``m`` is left as it was). One block instead of four saves
    the allocator's rounding and headers on each: most matchers are a few entries."""
    cdef bint narrow = nodes_narrow(m)
    cdef Py_ssize_t esize = m.nentries * sizeof(Entry)
    cdef Py_ssize_t nsize = m.nnodes * (sizeof(Node8) if narrow else sizeof(Node))
    cdef Py_ssize_t ssize = (m.nnodes + 1) * sizeof(uint32_t) if m.specials != NULL else 0
    cdef unsigned char* at
    cdef Matcher* made = <Matcher*>PyMem_Malloc(sizeof(Matcher) + esize + nsize + ssize)
    cdef Node8* n8
    cdef uint32_t k
    if made == NULL:
        return NULL
    made[0] = m[0]
    made.narrow = narrow
    at = <unsigned char*>(made + 1)
    # Entry and Node are 4-byte aligned (uint32_t fields), Node8 2-byte, and the struct's
    # size is a multiple of 8 and the arrays' sizes multiples of 4: each is aligned
    made.entries = <Entry*>at if esize else NULL
    if esize:  # (an empty array may be NULL: memcpy's arguments never may)
        memcpy(at, m.entries, esize)
    at += esize
    made.nodes = <Node*>at if nsize else NULL
    if narrow:
        n8 = <Node8*>at
        for k in range(m.nnodes):
            n8[k].off = <uint16_t>m.nodes[k].off
            n8[k].lenf = <uint16_t>(node_len(&m.nodes[k])
                                    | (<uint32_t>node_flags(&m.nodes[k]) << NODE8_FLAG_SHIFT))
            n8[k].plain = (NO_PLAIN8 if m.nodes[k].plain == NO_PLAIN
                           else <uint16_t>m.nodes[k].plain)
            n8[k].parent = <int16_t>m.nodes[k].parent
    elif nsize:
        memcpy(at, m.nodes, nsize)
    at += nsize
    made.specials = <uint32_t*>at if ssize else NULL
    if ssize:
        memcpy(at, m.specials, ssize)
    PyMem_Free(m.entries)
    PyMem_Free(m.nodes)
    PyMem_Free(m.specials)
    return made


cdef bint nodes_narrow(const Matcher* m) noexcept:
    """Whether every node of ``m`` fits a Node8: its prefix's offset below 2 ** 16, its
    length below 2 ** NODE8_LEN_BITS, its plain rule's directive index below NO_PLAIN8 (or
    none), its parent an index below 2 ** 15 (true of every node when there are fewer)."""
    cdef uint32_t k
    cdef const Node* nd
    if m.nnodes > NODE8_MAX_NODES:
        return False
    for k in range(m.nnodes):
        nd = &m.nodes[k]
        if nd.off > 0xFFFF or node_len(nd) > NODE8_LEN or (
                nd.plain != NO_PLAIN and nd.plain >= NO_PLAIN8):
            return False
    return True


cdef void matcher_block_free(Matcher* m) noexcept:
    """Free a matcher made by matcher_block: its literal indexes, then the block."""
    m.entries = NULL  # in the block: not freed apart
    m.nodes = NULL
    m.specials = NULL
    matcher_free(m)
    PyMem_Free(m)


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
    PyMem_Free(m.node_lits)
    PyMem_Free(m.specials)
    memset(m, 0, sizeof(Matcher))


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


assert sizeof(Entry) == ENTRY_WORDS * sizeof(uint32_t)
assert sizeof(Node) == 4 * sizeof(uint32_t)
assert sizeof(Entry) == 16
assert sizeof(Node8) == 8
assert sizeof(Matcher) == 64
