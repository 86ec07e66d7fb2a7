# Part of robotrules._native (see _native.pxd for the map): doc.pxi.
# The parsed file (Doc): groups and agent tokens (robotrules._index), one matcher per distinct
# group selection (robotrules._compile.select), compiled on first query under a memory budget;
# and the Python boundary (exact_str: arguments checked before any memory is read).

cdef str exact_str(object value, str name):
    """``value`` as an exact ``str`` (a subclass's text copied), or TypeError: checked before
    any of its memory is read."""
    if type(value) is str:
        return <str>value
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{name} must be str, not {type(value).__name__}")


cdef inline int token_cmp(const unsigned char* buf, const Token* a, const Token* b) noexcept nogil:
    return cmp_bytes(buf + a.off, a.len, buf + b.off, b.len)


cdef inline bint token_before(const unsigned char* buf, const Token* tokens, uint32_t x,
                             uint32_t y) noexcept nogil:
    """Token ``x`` sorts before token ``y``: by bytes, then file order (the groups ascend
    with it)."""
    cdef int c = token_cmp(buf, &tokens[x], &tokens[y])
    return c < 0 or (c == 0 and x < y)


cdef inline void insertion_sort_tokens(uint32_t* idx, uint32_t n, const unsigned char* buf,
                                       const Token* tokens) noexcept nogil:
    """Sort a few token numbers ``idx`` by token_before, in place."""
    cdef uint32_t t
    cdef Py_ssize_t i, j
    for i in range(1, n):
        t = idx[i]
        j = i
        while j > 0 and token_before(buf, tokens, t, idx[j - 1]):
            idx[j] = idx[j - 1]
            j -= 1
        idx[j] = t


cdef inline void merge_token_runs(const uint32_t* src, uint32_t* dst, Py_ssize_t lo,
                                  Py_ssize_t mid, Py_ssize_t hi, const uint64_t* heads,
                                  const unsigned char* buf, const Token* tokens
                                  ) noexcept nogil:
    """Merge the sorted runs ``src[lo:mid]`` and ``src[mid:hi]`` into ``dst[lo:hi]``
    (stable; by ``heads``, each token's first eight bytes, then by token_before)."""
    cdef Py_ssize_t i = lo, j = mid, k = lo
    while i < mid and j < hi:
        if (heads[src[j]] < heads[src[i]] if heads[src[j]] != heads[src[i]]
                else token_before(buf, tokens, src[j], src[i])):
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


cdef int sort_tokens(uint32_t* idx, uint32_t n, const unsigned char* buf, const Token* tokens
                     ) except -1:
    """Sort the token numbers ``idx`` by token_before: a bottom-up merge sort (stable,
    O(n log n), its context passed along: no global state); an insertion sort in place for
    a few (most files name a handful of agents)."""
    cdef uint32_t* tmp
    cdef uint32_t* src = idx
    cdef uint32_t* dst
    cdef uint32_t* swap
    cdef uint64_t* heads
    cdef Py_ssize_t width = 1, lo, mid, hi, i
    if n <= 16:
        insertion_sort_tokens(idx, n, buf, tokens)
        return 0
    # each token's first eight bytes as a number (zero-padded: tokens hold no NUL), beside
    # the merge buffer: most comparisons are of these, not of the bytes
    tmp = <uint32_t*>xmalloc(n * (sizeof(uint32_t) + sizeof(uint64_t)) + sizeof(uint32_t))
    heads = <uint64_t*>(tmp + n + (n & 1))  # (eight-byte aligned: n is rounded up)
    dst = tmp
    for i in range(n):
        heads[i] = head8(buf + tokens[i].off, tokens[i].len)
    try:
        while width < n:
            lo = 0
            while lo < n:
                mid = lo + width if lo + width < n else n
                hi = lo + 2 * width if lo + 2 * width < n else n
                merge_token_runs(src, dst, lo, mid, hi, heads, buf, tokens)
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


cdef inline bint star_line(const unsigned char* v, uint32_t vlen) noexcept:
    """Whether the user-agent value ``v[:vlen]`` is '*' (alone, or before white space): a
    line of the global groups (robotrules._index), which names no token."""
    return vlen >= 1 and v[0] == C_STAR and (vlen == 1 or _ws[v[1]])


cdef Py_ssize_t value_bytes(U32Vec* uas) noexcept:
    """The bytes of every user-agent value (room for all their tokens)."""
    cdef Py_ssize_t u, total = 0
    for u in range(uas.n // 3):
        total += uas.data[3 * u + 1]
    return total


cdef inline void count_lines(const U32Vec* dirs, const uint8_t* roles, Py_ssize_t* nua,
                             Py_ssize_t* nrule) noexcept nogil:
    """How many user-agent lines (``nua``) and rules (``nrule``) the directives hold."""
    cdef Py_ssize_t i
    cdef int role
    nua[0] = nrule[0] = 0
    for i in range(dirs.n // 3):
        role = roles[dirs.data[3 * i] >> KIND_SHIFT]
        if role == R_UA:
            nua[0] += 1
        elif role == R_ALLOW or role == R_DISALLOW:
            nrule[0] += 1


cdef inline int file_groups(const U32Vec* dirs, const uint8_t* roles, U32Vec* ua_words,
                            U32Vec* rule_words, U32Vec* gstart) except -1:
    """The groups of the directives (robotrules._index.build): per user-agent line its value
    and group (``ua_words``), per rule in a group its value, directive and length with the
    allow bit (``rule_words``), and where each group's rules start (``gstart``, and the
    end)."""
    cdef Py_ssize_t i
    cdef int role
    cdef bint in_group = False, has_rules = False
    for i in range(dirs.n // 3):
        role = roles[dirs.data[3 * i] >> KIND_SHIFT]
        if role == R_UA:
            if not in_group or has_rules:
                vec_push(gstart, <uint32_t>(rule_words.n // 3))
                in_group = True
                has_rules = False
            vec_push(ua_words, dirs.data[3 * i + 1])
            vec_push(ua_words, dirs.data[3 * i + 2])
            vec_push(ua_words, <uint32_t>(gstart.n - 1))
        elif role == R_BLANK:
            in_group = False
        elif role == R_ALLOW or role == R_DISALLOW:
            if in_group:
                vec_push(rule_words, dirs.data[3 * i + 1])
                vec_push(rule_words, <uint32_t>i)
                vec_push(rule_words, dirs.data[3 * i + 2] | (
                    RULE_ALLOW if role == R_ALLOW else 0))
                has_rules = True
        elif role == R_ENDS:
            if in_group:
                has_rules = True
    vec_push(gstart, <uint32_t>(rule_words.n // 3))
    return 0


cdef inline bint names_an_agent(const unsigned char* data, const U32Vec* uas) noexcept:
    """Whether a user-agent line (``uas``: value start, length, group) is not '*'."""
    cdef Py_ssize_t u
    for u in range(uas.n // 3):
        if not star_line(data + uas.data[3 * u], uas.data[3 * u + 1]):
            return True
    return False


cdef inline int read_tokens(const unsigned char* data, const U32Vec* uas, const uint8_t* tb,
                            Token* tokens, unsigned char* tokbuf, U32Vec* sels,
                            uint32_t* ntok) except -1:
    """The global selection's groups (those with a '*' line, in file order, once) into
    ``sels``, and the agent token of every other user-agent line (its product token, read
    by ``tb``, lower-cased into ``tokbuf``) into ``tokens[:ntok]``, each with its group."""
    cdef Py_ssize_t u, tlen, x
    cdef uint32_t vlen, g, off = 0
    cdef const unsigned char* v
    cdef Token* tok
    for u in range(uas.n // 3):
        vlen = uas.data[3 * u + 1]
        g = uas.data[3 * u + 2]
        v = data + uas.data[3 * u]
        if star_line(v, vlen):
            if sels.n == 0 or sels.data[sels.n - 1] != g:
                vec_push(sels, g)
            continue
        tlen = 0
        while tlen < vlen and tb[v[tlen]]:
            tlen += 1
        tok = &tokens[ntok[0]]
        tok.off = off
        tok.len = <uint32_t>tlen  # a value: at most MAX_LINE bytes
        tok.sel = g  # the group, until the selections are known
        for x in range(tlen):  # token bytes are ASCII: lower-case them here
            tokbuf[off + x] = ascii_lower(v[x])
        off += <uint32_t>tlen
        ntok[0] += 1
    return 0


cdef inline uint32_t same_selection(const U32Vec* sels, const U32Vec* sel_start, uint32_t lo,
                                    uint32_t count, const int32_t* single, HashMap* lists
                                    ) noexcept nogil:
    """The selection made before for the group list ``sels[lo:lo + count]`` (one group: by
    ``single``; more: by a hash of the list in ``lists``, a file may hold thousands), or
    0xFFFFFFFF: none (then ``lists`` names the one to be made, ``sel_start.n - 1``)."""
    cdef uint32_t j
    cdef uint32_t* slot
    cdef bint fresh
    if count == 1:
        return <uint32_t>single[sels.data[lo]] if single[sels.data[lo]] >= 0 else 0xFFFFFFFFu
    slot = map_slot(lists, hash_bytes(<const unsigned char*>&sels.data[lo],
                                      count * sizeof(uint32_t)), &fresh)
    if fresh:
        slot[0] = <uint32_t>(sel_start.n - 1)  # the one the caller makes
        return 0xFFFFFFFFu
    j = slot[0]
    if sel_start.data[j + 1] - sel_start.data[j] == count and memcmp(
            &sels.data[sel_start.data[j]], &sels.data[lo], count * sizeof(uint32_t)) == 0:
        return j
    return 0xFFFFFFFFu


cdef inline uint32_t selection_rule_count(const Build* b, uint32_t k) noexcept nogil:
    """How many rules the groups of selection ``k`` hold."""
    cdef uint32_t j, g, cap = 0
    for j in range(b.sel_start.data[k], b.sel_start.data[k + 1]):
        g = b.sel_groups.data[j]
        cap += b.gstart.data[g + 1] - b.gstart.data[g]
    return cap


cdef inline uint32_t selection_rules(const Build* b, uint32_t k, RawRule* rules
                                     ) noexcept nogil:
    """The rules of selection ``k``'s groups, in group order, into ``rules`` (room for
    selection_rule_count of them); how many."""
    cdef uint32_t j, g, r, count = 0
    cdef const U32Vec* words = &b.rule_words
    for j in range(b.sel_start.data[k], b.sel_start.data[k + 1]):
        g = b.sel_groups.data[j]
        for r in range(b.gstart.data[g], b.gstart.data[g + 1]):
            rules[count].vstart = words.data[3 * r]
            rules[count].index = words.data[3 * r + 1]
            rules[count].vlen = words.data[3 * r + 2] & RULE_LEN
            rules[count].allow = (words.data[3 * r + 2] & RULE_ALLOW) != 0
            rules[count].rid = r
            count += 1
    return count


cdef inline void count_read_rules(const Build* b, uint32_t* kept, uint32_t* npool
                                  ) noexcept nogil:
    """How many rules the groups some selection still reads hold (Build.readers), and how
    many pool entries their pattern memo names (Doc._shrink_build)."""
    cdef uint32_t g, r
    cdef const uint32_t* gstart = b.gstart.data
    kept[0] = npool[0] = 0
    for g in range(<uint32_t>(b.gstart.n - 1)):
        if b.readers[g]:
            kept[0] += gstart[g + 1] - gstart[g]
            if b.pat_memo != NULL:
                for r in range(gstart[g], gstart[g + 1]):
                    if b.pat_memo[r] != MEMO_NONE:
                        npool[0] += 2 if b.pat_memo[r] & MEMO_PAIR else 1


cdef inline void copy_read_rules(Build* b, uint32_t* words, uint32_t* memo, uint32_t* pool,
                                 uint32_t* kept, uint32_t* npool) noexcept nogil:
    """Copy the rules count_read_rules counted into ``words`` (and their pattern memo and
    pool entries, renumbered, into ``memo`` and ``pool`` unless ``memo`` is NULL),
    renumbering ``b.gstart`` in place; ``kept`` and ``npool`` get how many."""
    cdef uint32_t ngroups = <uint32_t>(b.gstart.n - 1)
    cdef uint32_t j, g, r, lo, hi, at
    cdef uint32_t* gstart = b.gstart.data
    kept[0] = npool[0] = 0
    for g in range(ngroups):  # gstart renumbered in place: gstart[g] is read first
        lo = gstart[g]
        hi = gstart[g + 1]
        gstart[g] = kept[0]
        if not b.readers[g]:
            continue
        memcpy(&words[3 * <Py_ssize_t>kept[0]], &b.rule_words.data[3 * <Py_ssize_t>lo],
               3 * <Py_ssize_t>(hi - lo) * sizeof(uint32_t))
        if memo != NULL:
            for r in range(lo, hi):
                at = b.pat_memo[r]
                if at == MEMO_NONE:
                    memo[kept[0] + r - lo] = MEMO_NONE
                    continue
                memo[kept[0] + r - lo] = npool[0] | (at & MEMO_PAIR)
                j = 2 if at & MEMO_PAIR else 1
                memcpy(&pool[npool[0] * <Py_ssize_t>ENTRY_WORDS],
                       &b.pool.data[(at & ~MEMO_PAIR) * <Py_ssize_t>ENTRY_WORDS],
                       j * ENTRY_WORDS * sizeof(uint32_t))
                npool[0] += j
        kept[0] += hi - lo
    gstart[ngroups] = kept[0]


cdef inline uint32_t pair_bit(uint32_t pair) noexcept nogil:
    """The bit of a pair of bytes (little-endian) in a 256-bit set (path_pairs)."""
    return (pair * 0x9E3779B1u) >> 24


cdef inline void path_pairs(const unsigned char* p, Py_ssize_t n, uint64_t* pairs
                            ) noexcept nogil:
    """``pairs`` (256 bits, zeroed by the caller): the bit of each two bytes side by side
    in the path ``p[:n]`` (Doc._scan: a rule needing a pair none of them has cannot match)."""
    cdef Py_ssize_t i
    cdef uint32_t x
    for i in range(n - 1):
        x = pair_bit(p[i] | (<uint32_t>p[i + 1] << 8))
        pairs[x >> 6] |= <uint64_t>1 << (x & 63)


cdef inline bint passed_over(uint32_t h, uint32_t head, const uint64_t* pairs) noexcept nogil:
    """Whether Doc._scan passes over a rule whose Build.heads entry is ``h`` unread, for a
    path whose first two bytes are ``head`` (HEAD_ANY where not both are clean) and whose
    pairs are ``pairs``: its two clean first bytes are not the path's (it parts from the path
    at one of them), or the two clean bytes after its first '*' (HEAD_NEEDLE) are nowhere
    side by side in the path (its pattern holds them so, and a path it matches does too)."""
    cdef uint32_t x
    if h == HEAD_ANY:
        return False
    if h & HEAD_NEEDLE:
        x = pair_bit(h & ~(<uint32_t>HEAD_NEEDLE))
        return (pairs[x >> 6] >> (x & 63)) & 1 == 0
    return head != HEAD_ANY and h != head


cdef inline int url_path(const unsigned char* u, Py_ssize_t n, const DialectTables* dt,
                         unsigned char* small, unsigned char** buf, const unsigned char** p,
                         Py_ssize_t* plen, bint* work) except -1:
    """The path of the URL ``u[:n]`` as the dialect reads it before normalising (``p[:plen]``:
    in the URL, "/" or, with a '/' put in front, in ``small`` (512 bytes) or a new ``buf``
    the caller frees), and whether it needs RFC 9309's normalising (``work``), found in the
    same pass (Doc._url_key)."""
    cdef Py_ssize_t start, end
    cdef bint slash
    cdef const unsigned char* nul
    work[0] = False
    path_span(u, n, &start, &end, &slash, work if dt.normal_path else NULL)
    if start < 0:
        p[0] = <const unsigned char*>"/"
        plen[0] = 1
    elif slash:
        plen[0] = end - start + 1
        if plen[0] <= 512:
            buf[0] = small
        else:
            buf[0] = <unsigned char*>xmalloc(plen[0])
        buf[0][0] = C_SLASH
        memcpy(buf[0] + 1, u + start, plen[0] - 1)
        p[0] = buf[0]
    else:
        p[0] = u + start
        plen[0] = end - start
    if dt.nul_ends_path:
        # robotrules._url.path_of: Google's matcher reads the path as a C string
        nul = <const unsigned char*>memchr(p[0], C_NUL, plen[0])
        if nul != NULL:
            plen[0] = nul - p[0]
    return 0


cdef inline object normal_url_path(str url, const unsigned char** p, Py_ssize_t* plen,
                                   unsigned char* norm_small, unsigned char** norm_buf):
    """RFC 9309 2.2.2: the path ``p[:plen]`` of ``url`` normalised, in C (normal_path, into
    ``norm_small`` (512 bytes) or a new ``norm_buf`` the caller frees); for a lone surrogate
    robotrules._url.rfc_path, whose bytes are returned (the caller holds them while ``p``
    points into them); else None. ``url`` None: the caller has only the bytes, and a lone
    surrogate is a ValueError."""
    cdef Py_ssize_t k
    if 3 * plen[0] <= 512:
        norm_buf[0] = norm_small
    else:
        norm_buf[0] = <unsigned char*>xmalloc(3 * plen[0])
    k = normal_path(p[0], plen[0], norm_buf[0])
    if k >= 0:
        p[0] = norm_buf[0]
        plen[0] = k
        return None
    if url is None:  # bytes that came as bytes: UTF-8 holds no lone surrogate
        raise ValueError("a URL's path is not UTF-8")
    norm = _rfc_path(url).encode("utf-8", "surrogatepass")
    p[0] = <const unsigned char*>PyBytes_AS_STRING(norm)
    plen[0] = PyBytes_GET_SIZE(norm)
    return norm


cdef class Doc:
    """The native peer (:class:`robotrules._peer.Peer`): a robots.txt in the ``google`` or
    ``rfc9309`` dialect of at most ``MAX_BODY`` bytes, read in C and ready to answer. The
    selector (:mod:`robotrules._peers`) gives every other file to the pure peer; given one
    anyway, the constructor raises ``ValueError`` (``TypeError`` for a body that is not
    ``bytes``). Nothing here calls back into a Python subclass."""

    # Every parsed file is one of these (with its facade's one slot and Python's GC header):
    # the fields are ordered so that the whole object stays at 256 bytes (the 4-byte ones
    # together, no padding; checked by tests/core/test_native.py)
    cdef bytes body           # the file's bytes, as the caller gave them; None: parsed with
                              # keep_text=False, data is the values the Doc owns (_own_values)
    cdef const unsigned char* data  # the bytes read: body's after its byte-order mark, or
                                    # the values the Doc owns
    cdef Pats pats
    cdef Token* tokens
    cdef unsigned char* tokbuf
    cdef Matcher** sels        # sels[0]: the global selection ('*' groups, maybe none);
                               # NULL until compiled (a file names many agents few ask for)
    cdef PyObject* memo_agent[MEMO]
    # until every selection is compiled, what compiling them needs (Build; NULL after): kept
    # apart so that a Doc and its facade subclass stay small objects of Python's allocator
    cdef Build* build
    # the peer surface's plain values (its dialect: the property, from dialect_code)
    cdef public Py_ssize_t size
    cdef readonly object base_url
    cdef readonly uint64_t evictions  # how often the compiled matchers were dropped
    # the reading for the slower answers (groups, explanations, findings), made on first use
    # by the pure homes (robotrules._tables names them): the text, the directive stream, the
    # noted lines and the group index
    cdef object text_, dirs_, odd_, index_
    # which of the memos the facade keeps answer which agent (facts.pxi: AgentMemos; None
    # until the first is bound)
    cdef object memos_
    cdef uint32_t memo_sel[MEMO]
    # lengths within a body of at most NATIVE_MAX (2 ** 28) bytes: the text after the
    # byte-order mark and the lower-cased agent tokens (at most the body, and one)
    cdef uint32_t data_len, tokbuf_size
    cdef uint32_t ntokens, nsels
    cdef readonly uint32_t directive_count
    cdef uint8_t bom_           # the byte-order mark's length (0 or 3)
    cdef uint8_t dialect_code   # an index into the dialect tables (_dialect_tables, _NAMES)
    cdef uint8_t memo_next      # below MEMO

    def __cinit__(self, body, dialect, base_url=None, bint keep_text=True):
        cdef int d
        cdef Py_ssize_t skip, size
        memset(self.memo_agent, 0, sizeof(self.memo_agent))
        memset(&self.pats, 0, sizeof(Pats))
        if type(body) is not bytes:
            raise TypeError(f"body must be bytes, not {type(body).__name__}")
        dialect = exact_str(dialect, "dialect")
        if base_url is not None:
            base_url = exact_str(base_url, "base_url")
        if not _ready:
            ready()
        d = dialect_code(dialect)
        if not _dialect_tables[d].native:
            raise ValueError(f"the native peer reads {' and '.join(DIALECTS)}, not {dialect}"
                             " (robotrules.parse gives the pure peer the others)")
        size = PyBytes_GET_SIZE(body)
        if size > NATIVE_MAX:
            raise ValueError(f"the native peer reads bodies of at most {NATIVE_MAX} bytes "
                             "(robotrules.parse gives the pure peer longer ones)")
        # robotrules._tokenize.bom_length (the rule's home) says how many bytes of a
        # byte-order mark to skip; the tokenizer reads CR and CRLF line ends as they are
        skip = _bom_length(body) if size and _bom_start[<unsigned char>PyBytes_AS_STRING(
            body)[0]] else 0
        self.body = body
        self.data = <const unsigned char*>PyBytes_AS_STRING(body) + skip
        self.data_len = <uint32_t>(size - skip)  # at most NATIVE_MAX: checked above
        self.dialect_code = d
        self.size = size
        self.base_url = base_url
        self.bom_ = <uint8_t>skip
        self._build()
        if not keep_text:
            self._own_values()

    def __dealloc__(self):
        cdef uint32_t i
        for i in range(MEMO):
            if self.memo_agent[i] != NULL:
                Py_DECREF(<object>self.memo_agent[i])
        for i in range(self.nsels):
            if self.sels[i] != NULL:
                matcher_block_free(self.sels[i])
        PyMem_Free(self.sels)
        PyMem_Free(self.tokens)
        PyMem_Free(self.tokbuf)
        PyMem_Free(self.pats.data)
        self._drop_build()
        if self.body is None:  # the values the Doc owns (_own_values)
            PyMem_Free(<void*>self.data)

    cdef void _drop_build(self) noexcept:
        """Free what compiling needed (every selection is compiled, or the Doc goes)."""
        cdef Build* b = self.build
        if b == NULL:
            return
        self.build = NULL
        PyMem_Free(b.pat_memo)
        PyMem_Free(b.readers)
        PyMem_Free(b.scan_work)
        PyMem_Free(b.heads)
        vec_free(&b.pool)
        vec_free(&b.rule_words)
        vec_free(&b.gstart)
        vec_free(&b.sel_groups)
        vec_free(&b.sel_start)
        PyMem_Free(b)  # and the room its vectors borrow

    cdef int _build(self) except -1:
        cdef U32Vec dirs, ua_words, rule_words, gstart
        cdef Py_ssize_t ndirs, nua, nrule
        cdef uint64_t room
        cdef const uint8_t* roles = _dialect_tables[self.dialect_code].roles
        cdef uint32_t few_dirs[DIRS_SMALL]  # a small file's directives, on the stack
        cdef uint32_t* words
        memset(&dirs, 0, sizeof(U32Vec))
        memset(&ua_words, 0, sizeof(U32Vec))
        memset(&rule_words, 0, sizeof(U32Vec))
        memset(&gstart, 0, sizeof(U32Vec))
        if 3 * (<Py_ssize_t>self.data_len // 32) + 48 <= DIRS_SMALL:  # scan's estimate fits there
            vec_borrow(&dirs, few_dirs, DIRS_SMALL)
        try:
            scan(self.data, self.data_len, self.dialect_code, &dirs, NULL)
            ndirs = dirs.n // 3
            self.directive_count = <uint32_t>ndirs
            # room for every user-agent line and rule at once (no regrowth, and no fitting:
            # what the file keeps until its selections are compiled is one block, the Build
            # with its vectors' room after it)
            count_lines(&dirs, roles, &nua, &nrule)
            # 3 words a user-agent line and a rule, a group start a line (and the end), and
            # Doc._index_agents' selections: a group a line, a start a line (and two)
            room = 3 * <uint64_t>nua + 3 * <uint64_t>nrule + (nua + 1) + nua + (nua + 2)
            if room > (<uint64_t>PY_SSIZE_T_MAX - sizeof(Build)) // sizeof(uint32_t):
                raise MemoryError()  # (only where Py_ssize_t is 32 bits)
            self.build = <Build*>xmalloc(sizeof(Build) + <Py_ssize_t>room * sizeof(uint32_t))
            memset(self.build, 0, sizeof(Build))
            words = <uint32_t*>(self.build + 1)
            vec_borrow(&ua_words, words, 3 * nua)
            vec_borrow(&rule_words, words + 3 * nua, 3 * nrule)
            vec_borrow(&gstart, words + 3 * nua + 3 * nrule, nua + 1)
            self.build.sel_room = words + 4 * nua + 3 * nrule + 1
            file_groups(&dirs, roles, &ua_words, &rule_words, &gstart)
            vec_free(&dirs)
            vec_move(&self.build.sel_groups, &ua_words)  # indexed on the first query (_index)
            self.build.nrules = <uint32_t>(rule_words.n // 3)  # < directives < 2 ** INDEX_BITS
            self.build.budget = BUDGET_MIN + BUDGET_PER_RULE * <uint64_t>(rule_words.n // 3)
            vec_move(&self.build.rule_words, &rule_words)
            vec_move(&self.build.gstart, &gstart)
        finally:
            vec_free(&dirs)
            vec_free(&ua_words)
            vec_free(&rule_words)
            vec_free(&gstart)
        return 0

    cdef int _own_values(self) except -1:
        """Keep only what the answers read: the user-agent and rule values, copied end to end
        into a block the Doc owns (their offsets renumbered into it), and no reference to the
        body. A file parsed so keeps about a fifth of its input (the values are 19% of the
        corpus's bytes) instead of all of it once the caller drops the body; the reading (the
        text, directives, groups, findings, ``source``) is then not available."""
        cdef Build* b = self.build
        cdef U32Vec* uas = &b.sel_groups  # the user-agent lines until _index (see Build)
        cdef U32Vec* rules = &b.rule_words
        cdef Py_ssize_t i, total = 0
        cdef uint32_t at = 0, vlen
        cdef unsigned char* own
        for i in range(uas.n // 3):
            total += uas.data[3 * i + 1]
        for i in range(rules.n // 3):
            total += rules.data[3 * i + 2] & RULE_LEN
        own = <unsigned char*>xmalloc(total if total else 1)  # total <= n < NATIVE_MAX
        for i in range(uas.n // 3):
            vlen = uas.data[3 * i + 1]
            memcpy(own + at, self.data + uas.data[3 * i], vlen)
            uas.data[3 * i] = at
            at += vlen
        for i in range(rules.n // 3):
            vlen = rules.data[3 * i + 2] & RULE_LEN
            memcpy(own + at, self.data + rules.data[3 * i], vlen)
            rules.data[3 * i] = at
            at += vlen
        self.data = own
        self.data_len = at
        self.body = None
        return 0

    cdef int _index(self) except -1:
        """Make the agent tokens and the selections (on the first query that needs them)."""
        cdef U32Vec uas = self.build.sel_groups  # the user-agent lines (see the fields)
        memset(&self.build.sel_groups, 0, sizeof(U32Vec))
        try:
            self._index_agents(&uas, &self.build.gstart)
        except BaseException:
            self.build.sel_groups = uas  # kept for the next query to try again (MemoryError)
            raise
        vec_free(&uas)
        return 0

    cdef int _index_agents(self, U32Vec* uas, U32Vec* gstart) except -1:
        """Tokens and their group selections, one slot per distinct selection for its
        matcher (robotrules._index._index_agents, then robotrules._compile.select)."""
        cdef Py_ssize_t nua = uas.n // 3
        cdef uint32_t ntok = 0, ngroups = <uint32_t>(gstart.n - 1)
        cdef U32Vec sels, sel_start
        cdef uint32_t* idx = NULL
        cdef HashMap lists
        memset(&sels, 0, sizeof(U32Vec))
        memset(&sel_start, 0, sizeof(U32Vec))
        memset(&lists, 0, sizeof(HashMap))
        try:
            PyMem_Free(self.tokbuf)  # what a call cut short by MemoryError left, if any
            PyMem_Free(self.tokens)
            self.tokbuf = NULL
            self.tokens = NULL
            self.tokbuf_size = 0
            if names_an_agent(self.data, uas):  # most files name none (only '*' lines)
                self.tokbuf_size = <uint32_t>(1 + value_bytes(uas))  # values of a capped body
                self.tokbuf = <unsigned char*>xmalloc(self.tokbuf_size)
                self.tokens = <Token*>xmalloc((nua if nua else 1) * sizeof(Token))
            # room for all at once: a group list holds each user-agent line's group at most
            # once, and there is a selection per token at most, and the global one (the
            # Build's room, made for them)
            vec_borrow(&sels, self.build.sel_room, nua)
            vec_borrow(&sel_start, self.build.sel_room + nua, nua + 2)
            # the global selection first: the groups with a '*' line (in file order, once)
            vec_push(&sel_start, 0)
            read_tokens(self.data, uas, _dialect_tables[self.dialect_code].token_byte,
                        self.tokens, self.tokbuf, &sels, &ntok)
            vec_push(&sel_start, <uint32_t>sels.n)
            self.ntokens = 0
            if ntok:  # (none: every agent selects the global groups, selection 0)
                # one block: the tokens' order (idx), then each group's one-group selection
                idx = <uint32_t*>xmalloc((ntok + ngroups + 1) * sizeof(uint32_t))
                map_init(&lists, ntok + 2)
                self._distinct_tokens(ntok, ngroups, idx, &lists, &sels, &sel_start)
            self._keep_selections(&sels, &sel_start, gstart, ngroups)
        finally:
            vec_free(&sels)
            vec_free(&sel_start)
            map_free(&lists)
            PyMem_Free(idx)  # and single
        return 0

    cdef int _distinct_tokens(self, uint32_t ntok, uint32_t ngroups, uint32_t* idx,
                               HashMap* lists, U32Vec* sels, U32Vec* sel_start) except -1:
        """The distinct tokens in byte order (``self.tokens``, ``ntok`` read by read_tokens),
        each with the selection of its groups in file order: a selection already made for the
        same group list (one group: ``single``; more: by a hash of the list, ``lists``), else
        a new one. ``idx`` has room for the tokens' order and a number per group."""
        cdef uint32_t k, run, lo, g, count, sel, nfinal = 0
        cdef int32_t* single
        cdef Token* final
        cdef bint fresh
        for k in range(ntok):
            idx[k] = k
        sort_tokens(idx, ntok, self.tokbuf, self.tokens)
        single = <int32_t*>(idx + ntok)
        for k in range(ngroups):
            single[k] = -1
        if sel_start.data[1] - sel_start.data[0] == 1:
            single[sels.data[0]] = 0
        final = <Token*>xmalloc((ntok if ntok else 1) * sizeof(Token))
        if sel_start.data[1] - sel_start.data[0] > 1:  # the global list, to share it
            map_slot(lists, hash_bytes(<const unsigned char*>sels.data,
                                       sel_start.data[1] * sizeof(uint32_t)), &fresh)[0] = 0
        k = 0
        while k < ntok:
            run = k
            lo = <uint32_t>sels.n
            while run < ntok and token_cmp(self.tokbuf, &self.tokens[idx[run]],
                                           &self.tokens[idx[k]]) == 0:
                g = self.tokens[idx[run]].sel
                if sels.n == lo or sels.data[sels.n - 1] != g:
                    vec_push(sels, g)
                run += 1
            count = <uint32_t>sels.n - lo
            sel = same_selection(sels, sel_start, lo, count, single, lists)
            if sel == 0xFFFFFFFFu:
                sel = <uint32_t>(sel_start.n - 1)
                vec_push(sel_start, <uint32_t>sels.n)
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
        return 0

    cdef int _keep_selections(self, U32Vec* sels, U32Vec* sel_start, U32Vec* gstart,
                              uint32_t ngroups) except -1:
        """Keep the selections: one matcher slot each, compiled on its first query, and each
        one's groups (Doc.selection_groups); and, where every matcher fits the budget
        together, how many selections read each group (Build.readers). ``sels`` and
        ``sel_start`` move into the Build."""
        cdef uint32_t k, g, nsel = <uint32_t>(sel_start.n - 1)
        cdef uint64_t spread = 0
        # one block: the matchers, then each selection's groups (Doc.selection_groups:
        # where they start, then the group numbers), kept for the answers' groups
        self.sels = <Matcher**>xmalloc(nsel * sizeof(Matcher*) + (
            sel_start.n + sels.n) * sizeof(uint32_t))
        memset(self.sels, 0, nsel * sizeof(Matcher*))
        memcpy(<uint32_t*>(self.sels + nsel), sel_start.data,
               sel_start.n * sizeof(uint32_t))
        memcpy(<uint32_t*>(self.sels + nsel) + sel_start.n, sels.data,
               sels.n * sizeof(uint32_t))
        self.nsels = nsel  # (sels and sel_start go with the Build: not fitted)
        # a matcher holds at most 4 units (entries and nodes) a rule of its selection
        # (each rule one entry and a companion, a node each): when all of them fit the
        # budget, none is ever dropped, and a compiled selection's rules are not read
        # again
        for k in range(<uint32_t>sels.n):
            g = sels.data[k]
            spread += gstart.data[g + 1] - gstart.data[g]
        PyMem_Free(self.build.readers)  # what a call cut short by MemoryError left, if any
        self.build.readers = NULL
        if 4 * spread <= self.build.budget and sel_start.n > 2:  # one selection: no use
            self.build.readers = <uint32_t*>xmalloc((ngroups if ngroups else 1)
                                               * sizeof(uint32_t))
            memset(self.build.readers, 0, ngroups * sizeof(uint32_t))
            for k in range(<uint32_t>sels.n):
                self.build.readers[sels.data[k]] += 1
        vec_move(&self.build.sel_groups, sels)
        vec_move(&self.build.sel_start, sel_start)
        return 0

    cdef int _compile(self, uint32_t k) except -1:
        """Compile selection ``k`` (its groups' rules) into ``self.sels[k]``. Built aside
        and then published, so that a thread that ran meanwhile (a Python callback may let
        one run) leaves one matcher, not a torn one.

        Memory stays bounded whatever number of agents query the file: the patterns are read
        once per rule (pattern_entries), and when the matchers compiled so far and this one
        would hold more than ``budget`` entries and nodes (BUDGET_MIN + BUDGET_PER_RULE per
        rule of the file), the others are dropped first (they are compiled again when asked).
        A matcher with E entries and N nodes holds at most 16 E + 28 N bytes plus its literal
        indexes (built only over lists of more than LIT_MIN entries: at most 9.3 KiB + 40
        bytes an entry each), so all of them together stay within about 300 bytes a unit of
        the budget."""
        cdef Matcher m
        cdef RawRule* rules = NULL
        cdef RawRule few[SMALL_RULES]  # most selections: their rules on the stack
        cdef uint32_t count, cap
        cdef Build* b = self.build  # kept until this compile is over (busy)
        b.busy += 1
        try:
            try:
                cap = selection_rule_count(b, k)
                rules = (&few[0] if cap <= SMALL_RULES
                         else <RawRule*>xmalloc(cap * sizeof(RawRule)))
                count = selection_rules(b, k, rules)
                compile_rules(&m, rules, count, self.data, self.dialect_code, &self.pats, &b.pat_memo,
                              b.nrules, &b.pool)
            finally:
                if rules != &few[0]:
                    PyMem_Free(rules)
                b.busy -= 1
            self._publish(k, &m)
        finally:  # however this compile ended, the last one out frees what compiling needed
            self._done_building()
        return 0

    cdef int _publish(self, uint32_t k, Matcher* m) except -1:
        """Make the matcher ``m`` compiled for selection ``k`` the selection's (or free it:
        another thread published one meanwhile), first dropping every other one when they
        would hold more than the budget together; the groups only compiled selections read
        are counted dead (Build.readers)."""
        cdef Matcher* made
        cdef uint64_t cost
        cdef uint32_t i, j, g
        cdef Build* b = self.build
        if self.sels[k] != NULL:  # another thread published one meanwhile
            matcher_free(m)
            return 0
        made = matcher_block(m)
        if made == NULL:
            matcher_free(m)
            raise MemoryError()
        cost = <uint64_t>m.nentries + m.nnodes
        if b.live + cost > b.budget:
            for i in range(self.nsels):
                if self.sels[i] != NULL:
                    matcher_block_free(self.sels[i])
                    self.sels[i] = NULL
            b.live = 0
            b.compiled = 0
            self.evictions += 1
        self.sels[k] = made
        b.live += cost
        b.compiled += 1
        if b.readers != NULL:  # the groups only compiled selections read: not again
            for j in range(b.sel_start.data[k], b.sel_start.data[k + 1]):
                g = b.sel_groups.data[j]
                b.readers[g] -= 1
                if b.readers[g] == 0:
                    b.dead += b.gstart.data[g + 1] - b.gstart.data[g]
        return 0

    cdef bint _scan_first(self, uint32_t k) except -1:
        """Whether selection ``k``'s query is answered by reading its rules (Doc._scan)
        rather than by compiling it: while its readings so far have cost less than
        SCAN_WORK units per rule, when it holds SCAN_MIN rules or more (a smaller selection
        compiles to a list as cheap to make as one reading). A reading costs a unit per rule
        it passes over and READ_WORK per rule it reads; a compile about SCAN_WORK per rule
        (the generated files of benchmarks/bench_data.py: a reading that reads a few rules
        costs about a sixteenth of a compile; the worst-shape file of bench_worst.py, whose
        every rule is read, about as much as one). So a selection is compiled once its
        readings have cost about what compiling it does: a crawler that asks a file a few
        times per agent pays no compile, one that asks it often at most about twice what the
        best choice in hindsight costs, and at most 16 readings come first."""
        cdef Build* b = self.build
        cdef uint32_t j, g
        cdef uint64_t count = 0
        for j in range(b.sel_start.data[k], b.sel_start.data[k + 1]):
            g = b.sel_groups.data[j]
            count += b.gstart.data[g + 1] - b.gstart.data[g]
        if count < SCAN_MIN:
            return False
        if b.scan_work == NULL:
            b.scan_work = <uint64_t*>xmalloc(self.nsels * sizeof(uint64_t))
            memset(b.scan_work, 0, self.nsels * sizeof(uint64_t))
        return b.scan_work[k] < SCAN_WORK * count

    cdef int64_t _scan(self, uint32_t k, const unsigned char* p, Py_ssize_t n) except -1:
        """The key selection ``k``'s matcher would give for the path ``p[:n]``, read off its
        rules one by one (read_rule, the reading compile_rules starts with: each pattern is
        read once per file either way), the best key of those that match (entry_key and
        entry_matches, as matcher_best): no sort, no matcher made. A rule whose value parts
        from the path at a byte the dialect reads as it is, with only such bytes before it,
        is passed over unread: its pattern, normalised, starts with those bytes, so neither
        it nor its companion (a prefix of it ending in '/', anchored) can match."""
        cdef Build* b = self.build  # kept until this reading is over (busy)
        cdef uint32_t j, g, r, at, lim
        cdef uint32_t* words
        cdef const unsigned char* v
        cdef const uint8_t* stop = _dialect_tables[self.dialect_code].scan_stop
        cdef int64_t best = NO_MATCH
        cdef Py_ssize_t clean = 0  # the path's bytes before its first one in ``stop``
        cdef uint16_t* heads
        cdef uint32_t head = HEAD_ANY  # the path's first two bytes, when both are clean
        cdef uint64_t pairs[4]
        cdef uint64_t work = 0  # this reading's cost (Build.scan_work)
        while clean < n and not stop[p[clean]]:
            clean += 1
        memset(pairs, 0, sizeof(pairs))
        path_pairs(p, n, pairs)
        b.busy += 1
        try:
            heads = self._scan_heads()
            if clean >= 2:
                head = p[0] | (<uint32_t>p[1] << 8)
            for j in range(b.sel_start.data[k], b.sel_start.data[k + 1]):
                g = b.sel_groups.data[j]
                work += b.gstart.data[g + 1] - b.gstart.data[g]
                for r in range(b.gstart.data[g], b.gstart.data[g + 1]):
                    if passed_over(heads[r], head, pairs):
                        continue
                    words = b.rule_words.data + 3 * <Py_ssize_t>r
                    v = self.data + words[0]
                    lim = words[2] & RULE_LEN
                    if lim > n:
                        lim = <uint32_t>n
                    # where the value parts from the path, or its first byte in ``stop``
                    # (the bytes before are the path's: the first in ``stop`` is at clean)
                    at = <uint32_t>common_prefix(v, p, lim)
                    if at > clean:
                        at = <uint32_t>clean
                    if at < lim and v[at] != p[at] and not stop[v[at]]:
                        continue
                    best = self._scan_rule(r, words, p, n, best)
                    work += READ_WORK - 1
            b.scan_work[k] += work
        finally:
            b.busy -= 1
            self._done_building()
        return best

    cdef inline int64_t _scan_rule(self, uint32_t r, const uint32_t* words,
                                   const unsigned char* p, Py_ssize_t n, int64_t best
                                   ) except -1:
        """Doc._scan's reading of rule ``r`` (its ``words`` in Build.rule_words): ``best``,
        or the key of its entry (or its companion) where that is better and matches."""
        cdef Build* b = self.build
        cdef RawRule rule
        cdef Entry pair[2]
        cdef int got, i
        cdef int64_t key
        rule.vstart = words[0]
        rule.index = words[1]
        rule.vlen = words[2] & RULE_LEN
        rule.allow = (words[2] & RULE_ALLOW) != 0
        rule.rid = r
        got = read_rule(&rule, self.data, self.dialect_code, &self.pats, &b.pat_memo,
                        b.nrules, &b.pool, pair)
        for i in range(2 if got == READ_PAIR else 1 if got != READ_NONE else 0):
            key = entry_key(&pair[i])
            if key < best and entry_matches(&pair[i], p, n, self.data, self.pats.data):
                best = key
        return best

    cdef uint16_t* _scan_heads(self) except NULL:
        """Build.heads, made on first use (passed_over reads them): each rule's value's first
        two bytes where both are clean (not in the dialect's scan_stop: below 128, so bits 7
        and 15 are clear); else, where the two bytes after its first '*' are clean and it
        cannot have Google's companion (whose pattern, a prefix of it, lacks them), those
        with HEAD_NEEDLE; else HEAD_ANY."""
        cdef Build* b = self.build
        cdef const uint8_t* stop = _dialect_tables[self.dialect_code].scan_stop
        cdef uint32_t r, vlen
        cdef const uint32_t* words
        cdef const unsigned char* v
        cdef const unsigned char* star
        if b.heads == NULL:
            b.heads = <uint16_t*>xmalloc((b.nrules if b.nrules else 1) * sizeof(uint16_t))
            for r in range(b.nrules):
                words = b.rule_words.data + 3 * <Py_ssize_t>r
                v = self.data + words[0]
                vlen = words[2] & RULE_LEN
                b.heads[r] = HEAD_ANY
                if vlen >= 2 and not stop[v[0]] and not stop[v[1]]:
                    b.heads[r] = <uint16_t>(v[0] | (<uint32_t>v[1] << 8))
                    continue
                star = <const unsigned char*>memchr(v, C_STAR, vlen)
                if (star != NULL and star + 3 <= v + vlen and not stop[star[1]]
                        and not stop[star[2]]
                        and not may_have_companion(v, vlen, (words[2] & RULE_ALLOW) != 0)):
                    b.heads[r] = <uint16_t>(HEAD_NEEDLE | star[1] | (<uint32_t>star[2] << 8))
        return b.heads

    cdef void _done_building(self) noexcept:
        """Once every selection is compiled and no compile is under way, what compiling
        needed is freed and the normalised bodies fitted (no pattern is added any more);
        before that, the rules no selection left to compile reads (_shrink_build)."""
        if self.build == NULL or self.build.busy != 0:
            return
        if self.build.compiled == self.nsels:
            self._drop_build()
            pats_fit(&self.pats)
        elif self.build.readers != NULL and 2 * <uint64_t>self.build.dead >= self.build.nrules > 0:
            self._shrink_build()

    cdef void _shrink_build(self) noexcept:
        """Keep only the rules of the groups some selection not yet compiled reads (their
        rule numbers, pattern memo and pool entries renumbered): a file whose first agents
        compiled its big groups keeps what its other agents need, not the whole file. Only
        when no compiled matcher is ever dropped (Build.readers) and no compile is under way
        (busy: nothing holds a rule number or a pool position). Nothing changes when memory
        for the smaller copy is short."""
        cdef Build* b = self.build
        cdef uint32_t kept = 0, npool = 0
        cdef uint32_t* words
        cdef uint32_t* memo = NULL
        cdef uint32_t* pool = NULL
        count_read_rules(b, &kept, &npool)
        words = <uint32_t*>PyMem_Malloc((3 * <Py_ssize_t>kept if kept else 1) * sizeof(uint32_t))
        if b.pat_memo != NULL:
            memo = <uint32_t*>PyMem_Malloc((kept if kept else 1) * sizeof(uint32_t))
            pool = <uint32_t*>PyMem_Malloc(
                (npool * <Py_ssize_t>ENTRY_WORDS if npool else 1) * sizeof(uint32_t))
        if words == NULL or (b.pat_memo != NULL and (memo == NULL or pool == NULL)):
            PyMem_Free(words)
            PyMem_Free(memo)
            PyMem_Free(pool)
            return
        copy_read_rules(b, words, memo, pool, &kept, &npool)
        vec_free(&b.rule_words)  # (a borrowed buffer stays in the Build's room)
        b.rule_words.data = words
        b.rule_words.n = b.rule_words.cap = 3 * <Py_ssize_t>kept
        if memo != NULL:
            PyMem_Free(b.pat_memo)
            b.pat_memo = memo
            vec_free(&b.pool)
            b.pool.data = pool
            b.pool.n = b.pool.cap = npool * <Py_ssize_t>ENTRY_WORDS
        PyMem_Free(b.heads)  # numbered by the old rule numbers: made again on use
        b.heads = NULL
        b.nrules = kept
        b.dead = 0

    cdef inline uint32_t _token_selection(self, const unsigned char* kp, Py_ssize_t kn
                                          ) noexcept:
        """The selection of the agent token ``kp[:kn]`` (lower-cased): the one its group
        lines name (a bisection of the sorted tokens), else the global one (0)."""
        cdef Py_ssize_t lo = 0, hi = self.ntokens, mid
        cdef int c
        while lo < hi:
            mid = (lo + hi) >> 1
            c = cmp_bytes(self.tokbuf + self.tokens[mid].off, self.tokens[mid].len, kp, kn)
            if c == 0:
                return self.tokens[mid].sel
            if c < 0:
                lo = mid + 1
            else:
                hi = mid
        return 0

    cdef uint32_t _select(self, str user_agent) except 0xFFFFFFFFu:
        """The selection a user agent picks (memoised for the last few agents)."""
        cdef uint32_t i, s
        cdef Py_ssize_t kn
        cdef PyObject* ua = <PyObject*>user_agent
        cdef const unsigned char* kp
        cdef unsigned char lowered[AGENT_SMALL]
        cdef PyObject* hit
        for i in range(MEMO):
            if self.memo_agent[i] == ua:
                return self.memo_sel[i]
        if self.sels == NULL:
            self._index()
        if self.ntokens == 0:  # no group names an agent: each selects the global groups
            return 0
        kn = PyUnicode_GET_LENGTH(user_agent)
        if (PyUnicode_IS_ASCII(user_agent) and kn <= AGENT_SMALL and memchr(
                PyUnicode_DATA(user_agent), _agent_mark, kn) == NULL):
            # its own product token (robotrules._token.HEADER_MARK): the key is the agent
            # lower-cased (robotrules._token.query_key)
            kp = <const unsigned char*>PyUnicode_DATA(user_agent)
            for i in range(kn):
                lowered[i] = ascii_lower(kp[i])
            kp = lowered
        else:
            hit = PyDict_GetItem(_AGENT_KEYS, user_agent)
            if hit != NULL:
                key = <object>hit
            else:
                key = _query_key(user_agent)
                if len(_AGENT_KEYS) >= 4096:
                    _AGENT_KEYS.clear()
                _AGENT_KEYS[user_agent] = key
            kp = NULL
            if PyUnicode_IS_ASCII(key):  # only ASCII keys can name a group's token
                kp = <const unsigned char*>PyUnicode_DATA(key)
                kn = PyUnicode_GET_LENGTH(key)
        s = 0 if kp == NULL else self._token_selection(kp, kn)
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
        if self.sels[s] == NULL:
            if self._scan_first(s):
                return self._scan(s, p, n)
            self._compile(s)
        key = matcher_best(self.sels[s], p, n, self.data, self.pats.data)
        while key == NEED_INDEX:
            index_wanted(self.sels[s], self.data, self.pats.data)
            key = matcher_best(self.sels[s], p, n, self.data, self.pats.data)
        return key

    @cython.binding(False)
    def path_key(self, path, user_agent):
        """The key of the rule that decides ``path`` (a matchable path, as the dialect's
        spec gives it) for ``user_agent``, or NO_MATCH: robotrules._match's keys."""
        path = exact_str(path, "path")
        user_agent = exact_str(user_agent, "user_agent")
        if PyUnicode_IS_ASCII(path):
            return self._best(<const unsigned char*>PyUnicode_DATA(path),
                              PyUnicode_GET_LENGTH(path), user_agent)
        data = path.encode("utf-8", "surrogatepass")
        return self._best(<const unsigned char*>PyBytes_AS_STRING(data),
                          PyBytes_GET_SIZE(data), user_agent)

    cdef int64_t _url_key(self, str url, str user_agent, PyObject** path) except -3:  # -3: never a key
        """The key of the rule that decides ``url`` for ``user_agent`` (NO_MATCH when none
        does), or ROBOTS_TXT for RFC 9309's /robots.txt: url_bytes_key on the URL's UTF-8
        bytes (surrogatepass: a lone surrogate is read as robotrules._url reads it).
        ``path``, unless NULL, gets the path as a new reference to a ``str`` (the spec's
        ``path(url)``; the caller owns it)."""
        cdef object data
        if PyUnicode_IS_ASCII(url):
            return url_bytes_key(self, <const unsigned char*>PyUnicode_DATA(url),
                                 PyUnicode_GET_LENGTH(url), url, user_agent, path)
        data = url.encode("utf-8", "surrogatepass")
        return url_bytes_key(self, <const unsigned char*>PyBytes_AS_STRING(data),
                             PyBytes_GET_SIZE(data), url, user_agent, path)

    # the per-query methods are method descriptors (binding=False): a call reaches the C
    # function with no function object between (a tenth of a query's time)
    @cython.binding(False)
    def is_allowed(self, url, *, user_agent="*"):
        """May ``user_agent`` fetch ``url``? ``url`` is absolute or a path[?query]."""
        if type(url) is not str:
            url = exact_str(url, "url")
        if type(user_agent) is not str:
            user_agent = exact_str(user_agent, "user_agent")
        return _is_allowed_work(self, url, user_agent)

    @cython.binding(False)
    def url_key_path(self, url, user_agent):
        """``(key, path)``: the key of the rule that decides ``url`` for ``user_agent``
        (robotrules._match's keys, NO_MATCH, or -1 for RFC 9309's /robots.txt) and the path
        as the dialect's spec reads it, in one call (``explain``: the facts of a verdict)."""
        cdef PyObject* path = NULL
        if type(url) is not str:
            url = exact_str(url, "url")
        if type(user_agent) is not str:
            user_agent = exact_str(user_agent, "user_agent")
        key = self._url_key(url, user_agent, &path)
        text = <object>path
        Py_DECREF(text)  # the reference _url_key gave, now held by text
        return key, text

    @staticmethod
    def verdict_memo(make, Py_ssize_t bound):
        """A new, empty memo of one selection's verdict facts (facts.pxi: VerdictMemo)."""
        return VerdictMemo(make, bound)

    cdef AgentMemos _agent_memos(self):
        if self.memos_ is None:
            self.memos_ = AgentMemos()
        return <AgentMemos>self.memos_

    def keep_verdicts(self, user_agent, VerdictMemo memo not None):
        """Answer ``known_verdict`` for ``user_agent`` from ``memo`` (its selection's)."""
        self._agent_memos().bind_verdicts(exact_str(user_agent, "user_agent"), memo)

    @cython.binding(False)
    def known_verdict(self, url, user_agent):
        """The verdict of ``url`` for ``user_agent`` from the facts its memo keeps for the
        deciding key, in one C call; None where it keeps none (facts.pxi: AgentMemos)."""
        if type(url) is not str:
            url = exact_str(url, "url")
        if type(user_agent) is not str:
            user_agent = exact_str(user_agent, "user_agent")
        if self.memos_ is None:
            return None
        return (<AgentMemos>self.memos_).verdict(self, url, user_agent)

    @staticmethod
    def usage_memo(verdicts, paths, make, scope, vocabulary, Py_ssize_t bound):
        """A new, empty memo of one selection's usage answers over its verdict memo
        (facts.pxi: UsageMemo)."""
        return UsageMemo(verdicts, paths, make, scope, vocabulary, bound)

    def keep_usages(self, user_agent, UsageMemo memo not None):
        """Answer ``known_usage`` for ``user_agent`` in ``memo``'s scope and vocabulary
        from ``memo`` (its selection's)."""
        self._agent_memos().bind_usages(exact_str(user_agent, "user_agent"), memo)

    @cython.binding(False)
    def known_usage(self, url, user_agent, scope, vocabulary):
        """The Usage of ``url`` for ``user_agent`` in ``scope`` and ``vocabulary`` from
        the verdict facts and the answer its memo keeps, in one C call; None where it keeps
        either not (facts.pxi: AgentMemos)."""
        if type(url) is not str:
            url = exact_str(url, "url")
        if type(user_agent) is not str:
            user_agent = exact_str(user_agent, "user_agent")
        if self.memos_ is None:
            return None
        return (<AgentMemos>self.memos_).usage(self, url, user_agent, scope, vocabulary)

    def usage_paths(self, patterns):
        """The kernel's matcher of one agent's Content-Usage paths (facts.pxi: PathSet),
        given as the core reads them (robotrules._match.Pattern, None: no path)."""
        return PathSet([None if p is None else _compile._native_form(p) for p in patterns])

    @staticmethod
    def gather(classes, table):
        """The batch usage columns (see facts.pxi's gather)."""
        return gather(classes, table)

    @cython.binding(False)
    def decide_urls(self, urls, user_agent, no_match, list paths=None):
        """``(allowed, line, rule, reason, rules)``: the columns of
        robotrules._model.Decisions for ``urls`` (a list, tuple or other sequence of
        ``str``) and ``user_agent``, entry ``i`` equal to ``explain(urls[i])``'s fields, and
        ``rules`` the directive index of each rule they name, once each, in the order of the
        sorted distinct keys. Each key's facts come from the key itself; ``no_match``, plain
        ints ``(rule, reason)``, gives those of NO_MATCH for this agent's groups (Google's
        empty rule as a directive index or -1, the reason's index). ``paths``, unless None,
        gets each URL's path as the dialect's spec reads it. One C loop over the URLs, no
        Python frame per URL (batch.pxi)."""
        return decide_urls(self, urls, user_agent, no_match, paths)

    @cython.binding(False)
    def selected_groups(self, user_agent):
        """The indices of the groups that apply to ``user_agent`` in :attr:`group_index`:
        those of the selection its verdicts are matched by (Doc._select; the pure home of
        the choice is robotrules._compile.select, held equal by tests/core/test_peers.py)."""
        cdef uint32_t s, j
        cdef const uint32_t* starts
        user_agent = exact_str(user_agent, "user_agent")
        self._reading()  # (the groups are the reading's: not kept with keep_text=False)
        s = self._select(user_agent)
        starts = <const uint32_t*>(self.sels + self.nsels)
        return tuple([starts[self.nsels + 1 + j] for j in range(starts[s], starts[s + 1])])

    cdef int _reading(self) except -1:
        """ValueError unless the Doc keeps its text (``keep_text``, the default)."""
        if self.body is None:
            raise ValueError("this file was parsed with keep_text=False: it keeps only what "
                             "its verdicts read, not its text (parse it again to read it)")
        return 0

    def source(self):
        """The bytes as given (pickling and copying parse them again)."""
        self._reading()
        return self.body

    # -- the reading, for the slower answers -------------------------------------------------

    @property
    def latin1_text(self):
        """The body as Latin-1 text, LF line ends, no byte-order mark."""
        if self.text_ is None:
            self._reading()
            self.text_ = _to_text(self.body)[0]
        return self.text_

    @property
    def bom_length(self):
        return self.bom_

    @property
    def dialect(self):
        return _NAMES[self.dialect_code]

    cdef int _read_directives(self) except -1:
        if self.dirs_ is None:
            dirs, odd = tokenize(self.latin1_text, self.dialect)
            self.odd_ = odd
            self.dirs_ = dirs
        return 0

    @property
    def directives(self):
        """The directive stream of the text (this module's tokenize: the pure one in C)."""
        if self.dirs_ is None:
            self._read_directives()
        return self.dirs_

    @property
    def noted_lines(self):
        if self.odd_ is None:
            self._read_directives()
        return self.odd_

    @property
    def group_index(self):
        """The group index (robotrules._index.build over the directive stream)."""
        if self.index_ is None:
            self.index_ = _build_index(self.latin1_text, self.directives, self.dialect,
                                       self.base_url, None)
        return self.index_

    def __sizeof__(self):
        """What the native part keeps (the body given is the caller's, the values it owns
        with ``keep_text=False`` are counted): every C array."""
        cdef Py_ssize_t size = sizeof(Doc) + self.ntokens * sizeof(Token) + self.pats.cap
        if self.body is None:
            size += self.data_len
        cdef uint32_t i, j
        cdef Matcher* m
        cdef LitIndex* li
        cdef Build* b = self.build
        cdef const uint32_t* starts
        size += self.tokbuf_size + self.nsels * sizeof(Matcher*)
        if self.sels != NULL:  # and each selection's groups, in the same block
            starts = <const uint32_t*>(self.sels + self.nsels)
            size += (self.nsels + 1 + starts[self.nsels]) * sizeof(uint32_t)
        if b != NULL:
            size += sizeof(Build) + (b.pool.cap + b.rule_words.cap + b.gstart.cap
                                     + b.sel_groups.cap + b.sel_start.cap) * sizeof(uint32_t)
            if b.pat_memo != NULL:
                size += b.nrules * sizeof(uint32_t)
        for i in range(self.nsels):
            m = self.sels[i]
            if m == NULL:
                continue
            size += sizeof(Matcher) + m.nentries * sizeof(Entry) + m.nnodes * (
                sizeof(Node8) if m.narrow else sizeof(Node))
            if m.node_lits != NULL:
                size += m.nnodes * sizeof(NodeLit)
            if m.specials != NULL:
                size += (m.nnodes + 1) * sizeof(uint32_t)
            for j in range(m.nlits):
                li = &m.lits[j]
                size += sizeof(LitIndex) + 8192 + 256 * sizeof(int32_t) + (
                    2 * (li.nbuckets + 1) + li.bstart[li.nbuckets] + 1 + li.nrest
                ) * sizeof(uint32_t) + li.table.cap * (sizeof(uint64_t) + sizeof(uint32_t))
        return size


# -- is_allowed without the generic argument parsing ----------------------------------------
# Cython parses ``is_allowed(url, user_agent=...)``'s arguments with its generic keyword code
# (a third of a warm query). The usual call, one positional ``str`` and at most the keyword
# ``user_agent`` (its name the interned string a call site's keyword is) with a ``str``, is
# answered here directly; every other call goes to Cython's wrapper, which makes the same
# checks and raises as documented. Installed once at import, before any subclass exists.

cdef int64_t url_bytes_key(Doc doc, const unsigned char* u, Py_ssize_t n, str url,
                           str user_agent, PyObject** path) except -3:  # -3: never a key
    """The key of the rule that decides the URL ``u[:n]`` (its UTF-8 bytes) for
    ``user_agent`` (NO_MATCH when none does), or ROBOTS_TXT for RFC 9309's /robots.txt: the
    path as the dialect's spec reads it (robotrules._url), found in C. ``url`` is the URL's
    text, or None where the caller has only the bytes (decide_strings: they hold no lone
    surrogate, the one path normal_path leaves to robotrules._url). ``path``, unless NULL
    (and then ``url`` is the text), gets that path as a new reference to a ``str``."""
    cdef bint work
    cdef object norm
    cdef unsigned char small[512]
    cdef unsigned char* buf = NULL
    cdef const unsigned char* p
    cdef Py_ssize_t plen
    cdef unsigned char norm_small[512]
    cdef unsigned char* norm_buf = NULL
    cdef const DialectTables* dt = &_dialect_tables[doc.dialect_code]
    url_path(u, n, dt, small, &buf, &p, &plen, &work)
    try:
        if work:  # (normal_path only; "/" and a '/' put in front need none)
            norm = normal_url_path(url, &p, &plen, norm_small, &norm_buf)
        if path != NULL:
            text = path_text(url, u, n, p, plen)
            Py_INCREF(text)
            path[0] = <PyObject*>text
        if dt.robots_txt_allowed and plen == 11 and memcmp(p, b"/robots.txt", 11) == 0:
            return ROBOTS_TXT  # RFC 9309 2.2.2
        return doc._best(p, plen, user_agent)
    finally:
        if buf != NULL and buf != &small[0]:
            PyMem_Free(buf)
        if norm_buf != NULL and norm_buf != &norm_small[0]:
            PyMem_Free(norm_buf)


cdef extern from *:
    """
    typedef PyObject* (*robotrules_fastcall)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);
    static robotrules_fastcall robotrules_is_allowed_generic = NULL;  /* Cython's wrapper */
    static PyObject* (*robotrules_is_allowed_work)(PyObject*, PyObject*, PyObject*) = NULL;
    static PyObject* robotrules_kw_user_agent = NULL;  /* interned "user_agent" */
    static PyObject* robotrules_any_agent = NULL;      /* "*", the default */

    static PyObject* robotrules_is_allowed_fast(PyObject* self, PyObject* const* args,
                                                Py_ssize_t nargs, PyObject* kwnames) {
        if (nargs == 1 && PyUnicode_CheckExact(args[0])) {
            if (kwnames == NULL)
                return robotrules_is_allowed_work(self, args[0], robotrules_any_agent);
            if (PyTuple_GET_SIZE(kwnames) == 1
                    && PyTuple_GET_ITEM(kwnames, 0) == robotrules_kw_user_agent
                    && PyUnicode_CheckExact(args[1]))
                return robotrules_is_allowed_work(self, args[0], args[1]);
        }
        return robotrules_is_allowed_generic(self, args, nargs, kwnames);
    }

    static PyMethodDef robotrules_is_allowed_def = {
        "is_allowed", (PyCFunction)(void(*)(void))robotrules_is_allowed_fast,
        METH_FASTCALL | METH_KEYWORDS, NULL};

    /* Put the fast entry in place of the method descriptor ``generic`` of ``type``. */
    static int robotrules_install_is_allowed(PyObject* type, PyObject* generic, void* work) {
        PyMethodDescrObject* g = (PyMethodDescrObject*)generic;
        PyObject* descr;
        int failed;
        if (!PyObject_TypeCheck(generic, &PyMethodDescr_Type)
                || g->d_method->ml_flags != (METH_FASTCALL | METH_KEYWORDS)) {
            PyErr_SetString(PyExc_RuntimeError, "is_allowed is not a fast-call method");
            return -1;
        }
        robotrules_is_allowed_generic = (robotrules_fastcall)(void(*)(void))g->d_method->ml_meth;
        robotrules_is_allowed_work = (PyObject* (*)(PyObject*, PyObject*, PyObject*))work;
        robotrules_is_allowed_def.ml_doc = g->d_method->ml_doc;
        robotrules_kw_user_agent = PyUnicode_InternFromString("user_agent");
        robotrules_any_agent = PyUnicode_InternFromString("*");
        if (robotrules_kw_user_agent == NULL || robotrules_any_agent == NULL) return -1;
        descr = PyDescr_NewMethod((PyTypeObject*)type, &robotrules_is_allowed_def);
        if (descr == NULL) return -1;
        failed = PyDict_SetItemString(((PyTypeObject*)type)->tp_dict, "is_allowed", descr);
        Py_DECREF(descr);
        PyType_Modified((PyTypeObject*)type);
        return failed;
    }
    """
    int install_is_allowed "robotrules_install_is_allowed" (object type, object generic,
                                                             void* work) except -1


cdef object _is_allowed_work(object doc, object url, object user_agent):
    """Doc.is_allowed's answer for an exact ``str`` URL and agent (checked by the caller;
    ROBOTS_TXT has the allow bit)."""
    return ((<Doc>doc)._url_key(<str>url, <str>user_agent, NULL) & ALLOW_BIT) != 0


install_is_allowed(Doc, Doc.__dict__["is_allowed"], <void*>_is_allowed_work)
