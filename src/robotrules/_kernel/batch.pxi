# Part of robotrules._native (see _native.pxd for the map): batch.pxi.
# The batch API (RobotsTxt.decide_many, usage_many): every URL's deciding key found in one C
# loop and filed under its distinct key in a small open-addressing table (no sort of all the
# keys, no bisection); each distinct key's facts found from the key itself (the directive it
# names and that directive's line; NO_MATCH's rule and reason given by the caller as plain
# values); the columns of robotrules._model.Decisions written from them. Nothing here calls
# back into the caller.

cimport cpython.array as carray
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

cdef carray.array _BYTE_COLUMN = array("B")
cdef carray.array _KEY_COLUMN = array("q")
cdef int64_t INDEX_MASK = (<int64_t>1 << INDEX_BITS) - 1  # a key's directive index

cdef enum:
    SLOTS_SMALL = 64    # a call's first table of distinct keys (on the stack): 32 keys
    FACTS_SMALL = 32    # and their facts
    REASON_MAX = 255    # Fact.reason: an index into robotrules._model.REASONS
    REASON_RULE = 0     # REASONS.index("rule") (tests/core/test_decide_many.py checks them)
    REASON_ROBOTS_TXT = 3  # REASONS.index("robots-txt")


cdef inline Py_ssize_t key_hash(int64_t key, int shift) noexcept nogil:
    """The home slot of ``key`` in a table of ``2 ** (64 - shift)`` slots (Fibonacci
    hashing: the keys' high bits are the lengths, their low bits the directive indices)."""
    return <Py_ssize_t>((<uint64_t>key * 0x9E3779B97F4A7C15ull) >> shift)


cdef int slots_init(SlotMap* t, int64_t* keys, Py_ssize_t* vals, Py_ssize_t cap) noexcept:
    """An empty table over the given buffers of ``cap`` slots (a power of two, at least 2),
    not owned (``heap`` 0): the first table of a call lives on the stack."""
    cdef int bits = 0
    while (<Py_ssize_t>1 << bits) < cap:
        bits += 1
    t.keys = keys
    t.vals = vals
    t.mask = cap - 1
    t.shift = 64 - bits
    t.used = 0
    t.heap = 0
    memset(vals, 0xFF, cap * sizeof(Py_ssize_t))  # every slot -1: empty
    return 0


cdef void slots_free(SlotMap* t) noexcept:
    if t.heap:
        PyMem_Free(t.keys)
        PyMem_Free(t.vals)
    t.keys = NULL
    t.vals = NULL
    t.heap = 0


cdef int slots_grow(SlotMap* t) except -1:
    """Twice the slots (on the heap), every key filed again."""
    cdef Py_ssize_t cap = 2 * (t.mask + 1), i, h
    cdef SlotMap bigger
    cdef int64_t* keys = <int64_t*>xmalloc(cap * sizeof(int64_t))
    cdef Py_ssize_t* vals = <Py_ssize_t*>PyMem_Malloc(cap * sizeof(Py_ssize_t))
    if vals == NULL:
        PyMem_Free(keys)
        raise MemoryError()
    slots_init(&bigger, keys, vals, cap)
    bigger.heap = 1
    bigger.used = t.used
    for i in range(t.mask + 1):
        if t.vals[i] >= 0:
            h = key_hash(t.keys[i], bigger.shift)
            while bigger.vals[h] >= 0:
                h = (h + 1) & bigger.mask
            bigger.keys[h] = t.keys[i]
            bigger.vals[h] = t.vals[i]
    slots_free(t)
    t[0] = bigger
    return 0


cdef Py_ssize_t slots_find_or_add(SlotMap* t, int64_t key, Py_ssize_t value) except -2:
    """``key``'s value; or, where the table does not hold it, ``-1`` and ``key`` filed with
    ``value`` (the table growing to stay at most half full)."""
    cdef Py_ssize_t h = key_hash(key, t.shift), v
    while True:
        v = t.vals[h]
        if v < 0:
            break
        if t.keys[h] == key:
            return v
        h = (h + 1) & t.mask
    if 2 * (t.used + 1) > t.mask + 1:
        slots_grow(t)
        h = key_hash(key, t.shift)
        while t.vals[h] >= 0:
            h = (h + 1) & t.mask
    t.keys[h] = key
    t.vals[h] = value
    t.used += 1
    return -1


cdef int key_facts(Fact* f, const uint32_t* dirs, int64_t no_match_rule,
                   uint8_t no_match_reason) noexcept:
    """``f``'s facts from its key alone (``f.key``): a rule's key names its directive (the
    allow bit beside it); RFC 9309's /robots.txt and NO_MATCH are allowed, NO_MATCH with
    the selection's rule and reason (``no_match_rule``: Google's empty rule, or -1). ``dirs``
    is the directive stream (``Doc.directives``), read for the line of the deciding rule."""
    cdef int64_t rule
    f.allowed = 1
    if f.key == ROBOTS_TXT:
        f.rule = -1
        f.reason = REASON_ROBOTS_TXT
    elif f.key == NO_MATCH:
        f.rule = no_match_rule
        f.reason = no_match_reason
    else:
        f.rule = f.key & INDEX_MASK
        f.allowed = (f.key & ALLOW_BIT) != 0
        f.reason = REASON_RULE
    rule = f.rule
    f.line = 0 if rule < 0 else dirs[3 * rule] & LINE_MASK
    return 0


cdef inline void sort_facts_small(Fact** a, Py_ssize_t n) noexcept nogil:
    """Insertion sort by key (a call's distinct keys are few)."""
    cdef Py_ssize_t i, j
    cdef Fact* x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j].key > x.key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef int cmp_fact_key(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<Fact**>a)[0].key, y = (<Fact**>b)[0].key
    return (x > y) - (x < y)


cdef struct Keys:  # one call's distinct keys: their facts, and the table that files them
    Fact* facts        # facts[0:count], in the order first met
    Py_ssize_t count, cap
    SlotMap table      # key -> its index in facts


cdef Py_ssize_t file_key(Keys* ks, Fact* small, int64_t key) except -1:
    """The index of ``key`` in ``ks.facts``, filed there on first sight."""
    cdef Py_ssize_t s = ks.table.vals[key_hash(key, ks.table.shift)]  # found at home: most
    cdef Fact* grown
    if s >= 0 and ks.facts[s].key == key:
        return s
    s = slots_find_or_add(&ks.table, key, ks.count)
    if s >= 0:
        return s
    if ks.count == ks.cap:
        grown = <Fact*>xmalloc(2 * ks.cap * sizeof(Fact))
        memcpy(grown, ks.facts, ks.count * sizeof(Fact))
        if ks.facts != small:
            PyMem_Free(ks.facts)
        ks.facts = grown
        ks.cap *= 2
    s = ks.count
    ks.facts[s].key = key
    ks.count += 1
    return s


cdef int url_keys(Doc doc, object urls, bint is_list, str agent, Keys* ks, Fact* small,
                  int64_t* slots, list paths) except -1:
    """Each URL's key, filed under its distinct key in ``ks`` (``slots[i]``: URL ``i``'s
    index in ``ks.facts``); each URL's path appended to ``paths`` unless it is None."""
    cdef Py_ssize_t i, n = len(urls), last_slot = -1
    cdef int64_t key, last_key = 0
    cdef PyObject* path = NULL
    cdef str text
    for i in range(n):
        if is_list:
            if i >= PyList_GET_SIZE(urls):  # shrunk by another thread meanwhile
                raise RuntimeError("urls changed size during the call")
            url = <object>PyList_GET_ITEM(urls, i)
        else:
            url = <object>PyTuple_GET_ITEM(urls, i)
        text = <str>url if type(url) is str else exact_str(url, "url")
        if paths is None:
            key = doc._url_key(text, agent, NULL)
        else:
            key = doc._url_key(text, agent, &path)
            found = <object>path
            Py_DECREF(found)  # the reference _url_key gave, now held by found
            paths.append(found)
        if key != last_key or last_slot < 0:
            last_slot = file_key(ks, small, key)
            last_key = key
        slots[i] = last_slot
    return 0


cdef tuple number_rules(Fact* facts, Py_ssize_t m, Fact** order):
    """Each rule once, numbered in the order of the sorted keys (``f.index``: its number,
    -1 for none): the directive indices of Decisions.rules, in that order (``order``: room
    for ``m`` pointers)."""
    cdef Py_ssize_t j, s, nrules = 0
    cdef int64_t rule_keys[SLOTS_SMALL]
    cdef Py_ssize_t rule_vals[SLOTS_SMALL]
    cdef SlotMap by_rule
    cdef Fact* f
    for j in range(m):
        order[j] = &facts[j]
    if m <= FACTS_SMALL:
        sort_facts_small(order, m)
    else:
        qsort(order, m, sizeof(Fact*), cmp_fact_key)
    slots_init(&by_rule, rule_keys, rule_vals, SLOTS_SMALL)
    try:
        for j in range(m):
            f = order[j]
            if f.rule < 0:
                f.index = -1
                continue
            s = slots_find_or_add(&by_rule, f.rule, nrules)
            if s < 0:
                s = nrules
                nrules += 1
            f.index = s
    finally:
        slots_free(&by_rule)
    rules = PyTuple_New(nrules)
    s = 0
    for j in range(m):
        f = order[j]
        if f.rule >= 0 and f.index == s:  # the first key naming this rule
            number = f.rule
            Py_INCREF(number)
            PyTuple_SET_ITEM(rules, s, number)
            s += 1
    return <tuple>rules


cdef int every_key_facts(Doc doc, Keys* ks, int64_t no_match_rule, uint8_t no_match_reason
                         ) except -1:
    """Each distinct key's facts (key_facts), the directive stream read for their lines only
    where a rule decides (ValueError where the text is not kept)."""
    cdef Py_ssize_t j
    cdef Fact* f
    cdef const uint32_t* dirs = NULL
    for j in range(ks.count):
        f = &ks.facts[j]
        if dirs == NULL and (f.key != ROBOTS_TXT and (f.key != NO_MATCH
                                                      or no_match_rule >= 0)):
            lines = doc.directives
            dirs = <const uint32_t*>(<carray.array?>lines).data.as_voidptr
        key_facts(f, dirs, no_match_rule, no_match_reason)
    return 0


cdef object decide_urls(Doc doc, object urls, object user_agent, object no_match,
                        list paths):
    """Doc.decide_urls: the Decisions columns of ``urls`` for ``user_agent`` (see there)."""
    cdef Py_ssize_t n, i, j
    cdef int64_t no_match_rule
    cdef Py_ssize_t no_match_reason
    cdef bint is_list
    cdef int64_t small_keys[SLOTS_SMALL]
    cdef Py_ssize_t small_vals[SLOTS_SMALL]
    cdef Fact small_facts[FACTS_SMALL]
    cdef Fact* small_order[FACTS_SMALL]
    cdef Fact** order = &small_order[0]
    cdef Keys ks
    cdef Fact* f
    cdef str agent = user_agent if type(user_agent) is str else exact_str(user_agent,
                                                                          "user_agent")
    no_match_rule, no_match_reason = no_match
    if not -1 <= no_match_rule <= INDEX_MASK or not 0 <= no_match_reason <= REASON_MAX:
        raise ValueError(f"no_match out of range: {no_match!r}")
    is_list = type(urls) is list
    if not is_list and type(urls) is not tuple:
        from ._pure import urls_arg  # the one check of the batch APIs' URLs
        urls = urls_arg(urls)  # a list, or TypeError
        is_list = True
    n = len(urls)
    out_a = carray.clone(_BYTE_COLUMN, n, False)
    out_l = carray.clone(_KEY_COLUMN, n, False)
    out_r = carray.clone(_KEY_COLUMN, n, False)
    out_z = carray.clone(_BYTE_COLUMN, n, False)
    cdef uint8_t* oa = <uint8_t*>(<carray.array>out_a).data.as_voidptr
    cdef int64_t* ol = <int64_t*>(<carray.array>out_l).data.as_voidptr
    cdef int64_t* orr = <int64_t*>(<carray.array>out_r).data.as_voidptr
    cdef uint8_t* oz = <uint8_t*>(<carray.array>out_z).data.as_voidptr
    ks.facts = &small_facts[0]
    ks.count = 0
    ks.cap = FACTS_SMALL
    slots_init(&ks.table, small_keys, small_vals, SLOTS_SMALL)
    try:
        # each URL's key (its slot kept in the rule column until the rules are numbered)
        url_keys(doc, urls, is_list, agent, &ks, &small_facts[0], orr, paths)
        every_key_facts(doc, &ks, no_match_rule, <uint8_t>no_match_reason)
        if ks.count > FACTS_SMALL:
            order = <Fact**>xmalloc(ks.count * sizeof(Fact*))
        rules = number_rules(ks.facts, ks.count, order)
        # the columns, from each URL's slot
        for i in range(n):
            f = &ks.facts[orr[i]]
            oa[i] = f.allowed
            ol[i] = f.line
            orr[i] = f.index
            oz[i] = f.reason
    finally:
        if ks.facts != &small_facts[0]:
            PyMem_Free(ks.facts)
        if order != &small_order[0]:
            PyMem_Free(order)
        slots_free(&ks.table)
    return out_a, out_l, out_r, out_z, rules
