# Part of robotrules._native (see _native.pxd for the map): batch.pxi.
# The batch API (RobotsTxt.decide_many, usage_many): every URL's deciding key found in one C
# loop and filed under its distinct key in a small open-addressing table (no sort of all the
# keys, no bisection); each distinct key's facts read once, from the selection's FactMemo (no
# Python object per key once it is warm) or made by the facade; the columns of
# robotrules._model.Decisions written from them.

cimport cpython.array as carray
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport intptr_t

cdef carray.array _BYTE_COLUMN = array("B")
cdef carray.array _KEY_COLUMN = array("q")

cdef enum:
    SLOTS_SMALL = 64    # a call's first table of distinct keys (on the stack): 32 keys
    FACTS_SMALL = 32    # and their facts
    REASON_MAX = 255    # Fact.reason: an index into robotrules._model.REASONS


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


cdef class FactMemo:
    """The packed facts of one agent's verdicts, per deciding key (``allowed``, ``line``,
    ``rule``, ``reason``: what a column of robotrules._model.Decisions holds), kept in C for
    the batch API: a warm call reads them without a Python object per key. At most ``bound``
    keys are kept: past it, every one is dropped before the next is kept (the bound of the
    facade's facts per agent, robotrules._robots._Selection), in at most ``2 * bound`` slots
    of ``sizeof(Fact)`` (40) bytes. The facade's ``_Selection`` holds one
    (``Doc.fact_memo``); nothing else reads it."""

    cdef Fact* slots
    cdef Py_ssize_t cap, count, bound

    def __cinit__(self, Py_ssize_t bound):
        if bound < 1:
            raise ValueError("a FactMemo keeps at least one key")
        self.bound = bound

    def __dealloc__(self):
        self._drop()

    def __len__(self):
        return self.count

    def __sizeof__(self):
        """What it keeps in C: its slots (the rules are the facade's)."""
        return sizeof(FactMemo) + self.cap * sizeof(Fact)

    cdef void _drop(self) noexcept:
        """Forget every key (the slots are detached first: releasing a rule runs no code
        that could see them half cleared)."""
        cdef Fact* slots = self.slots
        cdef Py_ssize_t i, cap = self.cap
        self.slots = NULL
        self.cap = 0
        self.count = 0
        for i in range(cap):
            if slots[i].used and slots[i].rule != NULL:
                Py_DECREF(<object>slots[i].rule)
        PyMem_Free(slots)

    cdef inline const Fact* find(self, int64_t key) noexcept:
        """The facts kept for ``key``, or NULL (valid until the memo changes: copy them)."""
        cdef Py_ssize_t h
        if self.count == 0:
            return NULL
        h = <Py_ssize_t>((<uint64_t>key * 0x9E3779B97F4A7C15ull) >> 32) & (self.cap - 1)
        while self.slots[h].used:
            if self.slots[h].key == key:
                return &self.slots[h]
            h = (h + 1) & (self.cap - 1)
        return NULL

    cdef int put(self, const Fact* f) except -1:
        """Keep a copy of ``f`` (its own reference to the rule) under ``f.key``."""
        cdef Py_ssize_t h, i, cap
        cdef Fact* grown
        cdef Fact* old
        if self.count >= self.bound:
            self._drop()
        if 2 * (self.count + 1) > self.cap:  # at most half full: at most 2 * bound slots
            cap = self.cap * 2 if self.cap else 16
            grown = <Fact*>xmalloc(cap * sizeof(Fact))
            memset(grown, 0, cap * sizeof(Fact))
            old = self.slots
            for i in range(self.cap):
                if old[i].used:
                    h = <Py_ssize_t>((<uint64_t>old[i].key * 0x9E3779B97F4A7C15ull) >> 32) & (
                        cap - 1)
                    while grown[h].used:
                        h = (h + 1) & (cap - 1)
                    grown[h] = old[i]  # the reference moves with it
            self.slots = grown
            self.cap = cap
            PyMem_Free(old)
        h = <Py_ssize_t>((<uint64_t>f.key * 0x9E3779B97F4A7C15ull) >> 32) & (self.cap - 1)
        while self.slots[h].used:
            if self.slots[h].key == f.key:
                return 0  # kept already (the facts of a key never change)
            h = (h + 1) & (self.cap - 1)
        self.slots[h] = f[0]
        self.slots[h].used = 1
        if f.rule != NULL:
            Py_INCREF(<object>f.rule)
        self.count += 1
        return 0


cdef int read_packed(object packed, Fact* f) except -1:
    """``f``'s facts from the facade's ``(allowed, line, rule, reason)`` (``line`` 0 and
    ``rule`` None where none decided; ``reason`` an index into REASONS), checked; ``f.rule``
    gets a new reference."""
    cdef tuple t
    cdef int64_t line
    cdef Py_ssize_t reason
    if type(packed) is not tuple or PyTuple_GET_SIZE(packed) != 4:
        raise TypeError("the facts of a key are (allowed, line, rule, reason)")
    t = <tuple>packed
    line = t[1]
    reason = t[3]
    if line < 0 or not 0 <= reason <= REASON_MAX:
        raise ValueError(f"facts out of range: line {line}, reason {reason}")
    f.allowed = 1 if t[0] else 0
    f.line = line
    f.reason = <uint8_t>reason
    rule = t[2]
    if rule is None:
        f.rule = NULL
    else:
        Py_INCREF(rule)
        f.rule = <PyObject*>rule
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


cdef object decide_urls(Doc doc, object urls, object user_agent, FactMemo memo, object fact,
                        object make, list paths):
    """Doc.decide_urls: the Decisions of ``urls`` for ``user_agent`` (see there)."""
    cdef Py_ssize_t n, i, j, s, m = 0, dcap = FACTS_SMALL, nrules = 0, last_slot = -1
    cdef bint is_list
    cdef int64_t key, last_key = 0
    cdef PyObject* path = NULL
    cdef int64_t small_keys[SLOTS_SMALL]
    cdef Py_ssize_t small_vals[SLOTS_SMALL]
    cdef int64_t rule_keys[SLOTS_SMALL]
    cdef Py_ssize_t rule_vals[SLOTS_SMALL]
    cdef Fact small_facts[FACTS_SMALL]
    cdef Fact* small_order[FACTS_SMALL]
    cdef SlotMap table, by_rule
    cdef Fact* facts = &small_facts[0]
    cdef Fact* grown
    cdef Fact** order = &small_order[0]
    cdef const Fact* kept
    cdef Fact* f
    cdef Maker mk
    cdef str agent = user_agent if type(user_agent) is str else exact_str(user_agent,
                                                                          "user_agent")
    cdef str text
    if memo is None:
        raise TypeError("decide_urls needs a FactMemo (Doc.fact_memo)")
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
    slots_init(&table, small_keys, small_vals, SLOTS_SMALL)
    slots_init(&by_rule, rule_keys, rule_vals, SLOTS_SMALL)
    try:
        # each URL's key, filed under its distinct key (its slot kept in the rule column
        # until the rules are numbered)
        for i in range(n):
            if is_list:
                if i >= PyList_GET_SIZE(urls):  # shrunk by another thread meanwhile
                    raise RuntimeError("urls changed size during the call")
                url = <object>PyList_GET_ITEM(urls, i)
            else:
                url = <object>PyTuple_GET_ITEM(urls, i)
            if type(url) is str:
                text = <str>url
            else:
                text = exact_str(url, "url")
            if paths is None:
                key = doc._url_key(text, agent, NULL)
            else:
                key = doc._url_key(text, agent, &path)
                found = <object>path
                Py_DECREF(found)  # the reference _url_key gave, now held by found
                paths.append(found)
            if key == last_key and last_slot >= 0:
                orr[i] = last_slot
                continue
            s = table.vals[key_hash(key, table.shift)]  # found at home: most URLs
            if s < 0 or facts[s].key != key:
                s = slots_find_or_add(&table, key, m)
            if s < 0:  # a new distinct key
                if m == dcap:
                    grown = <Fact*>xmalloc(2 * dcap * sizeof(Fact))
                    memcpy(grown, facts, m * sizeof(Fact))
                    if facts != &small_facts[0]:
                        PyMem_Free(facts)
                    facts = grown
                    dcap *= 2
                s = m
                facts[s].key = key
                facts[s].rule = NULL
                m += 1
            orr[i] = s
            last_key = key
            last_slot = s
        # each distinct key's facts: kept in the memo, else made by the facade (and kept; the
        # call holds its own reference, whatever the bounded memo drops meanwhile)
        for j in range(m):
            f = &facts[j]
            kept = memo.find(f.key)
            if kept != NULL:
                f.allowed = kept.allowed
                f.line = kept.line
                f.reason = kept.reason
                f.rule = kept.rule
                if f.rule != NULL:
                    Py_INCREF(<object>f.rule)
            else:
                read_packed(fact(doc, f.key), f)
                memo.put(f)
        # the rules, each once by identity, in the order of the sorted keys
        if m > FACTS_SMALL:
            order = <Fact**>xmalloc(m * sizeof(Fact*))
        for j in range(m):
            order[j] = &facts[j]
        if m <= FACTS_SMALL:
            sort_facts_small(order, m)
        else:
            qsort(order, m, sizeof(Fact*), cmp_fact_key)
        for j in range(m):
            f = order[j]
            if f.rule == NULL:
                f.index = -1
                continue
            s = slots_find_or_add(&by_rule, <int64_t><intptr_t>f.rule, nrules)
            if s < 0:
                s = nrules
                nrules += 1
            f.index = s
        rules = PyTuple_New(nrules)
        s = 0
        for j in range(m):
            f = order[j]
            if f.rule != NULL and f.index == s:  # the first key naming this rule
                Py_INCREF(<object>f.rule)
                PyTuple_SET_ITEM(rules, s, <object>f.rule)
                s += 1
        # the columns, from each URL's slot
        for i in range(n):
            f = &facts[orr[i]]
            oa[i] = f.allowed
            ol[i] = f.line
            orr[i] = f.index
            oz[i] = f.reason
    finally:
        for j in range(m):
            if facts[j].rule != NULL:
                Py_DECREF(<object>facts[j].rule)
        if facts != &small_facts[0]:
            PyMem_Free(facts)
        if order != &small_order[0]:
            PyMem_Free(order)
        slots_free(&table)
        slots_free(&by_rule)
    if type(make) is Maker:
        mk = <Maker>make
        if mk.n != 6:
            raise ValueError("a Decisions is 6 values")
        d = mk.new()
        mk.put(d, 0, out_a)
        mk.put(d, 1, out_l)
        mk.put(d, 2, out_r)
        mk.put(d, 3, out_z)
        mk.put(d, 4, rules)
        mk.put(d, 5, agent)
        return d
    return make(out_a, out_l, out_r, out_z, rules, agent)
