# Part of robotrules._native (see _native.pxd for the map): arrow.pxi.
# The batch API over Arrow string buffers (decide_strings): the URLs of a string or
# large_string array read in place from its offsets and data, no Python object per row;
# each URL's key found by url_bytes_key (doc.pxi), as Doc._url_key finds it, filed under
# its distinct key with batch.pxi's table; the facts written into the caller's preallocated
# columns at the rows named. Every offset is checked against the data before a byte is read
# (a hostile Parquet file gives an error, never a read out of bounds). Nothing here calls
# back into the caller.

from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release,
                             PyObject_GetBuffer)
from cpython.unicode cimport PyUnicode_DecodeUTF8

cdef enum:
    REASON_INVALID_TEXT = 255  # decide_strings: a URL whose bytes are not UTF-8
    STRINGS_SLOT_NONE = -1     # a row's slot: not UTF-8, no key
assert REASON_INVALID_TEXT == _tables.REASON_INVALID_TEXT


cdef inline bint all_ascii(const unsigned char* u, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint64_t word
    i = 0
    while i + 8 <= n:
        memcpy(&word, u + i, 8)
        if word & 0x8080808080808080ull:
            return False
        i += 8
    while i < n:
        if u[i] & 0x80:
            return False
        i += 1
    return True


cdef int take_buffer(object obj, Py_buffer* view, int flags, Py_ssize_t width, str name
                     ) except -1:
    """``view`` of ``obj`` (a C-contiguous buffer of ``width``-byte items, ``width`` 0 for
    4 or 8); ValueError naming ``name`` otherwise (the view released)."""
    try:
        PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS)
    except BufferError as exc:  # read-only, or not contiguous
        raise ValueError(f"decide_strings: {name}: {exc}") from None
    if view.itemsize != width and not (width == 0 and view.itemsize in (4, 8)):
        size = view.itemsize
        PyBuffer_Release(view)
        want = "4 or 8" if width == 0 else str(width)
        raise ValueError(f"decide_strings: {name} has {size}-byte items, not {want}")
    return 0


cdef int string_keys(Doc doc, Py_buffer* offsets, Py_buffer* data, const int64_t* rows,
                     Py_ssize_t n, str agent, Keys* ks, Fact* small, int32_t* slots
                     ) except -1:
    """Each row's key (``rows[i]``: a string of the array), filed under its distinct key in
    ``ks`` (``slots[i]``: its index in ``ks.facts``, STRINGS_SLOT_NONE where the bytes are not
    UTF-8). Each row and its offsets are checked before its bytes are read."""
    cdef Py_ssize_t i, r, last_slot = -1
    cdef Py_ssize_t strings = offsets.len // offsets.itemsize - 1
    cdef int64_t lo, hi, key, last_key = 0, size = data.len
    cdef bint wide = offsets.itemsize == 8
    cdef const int64_t* off64 = <const int64_t*>offsets.buf
    cdef const int32_t* off32 = <const int32_t*>offsets.buf
    cdef const unsigned char* base = <const unsigned char*>data.buf
    for i in range(n):
        r = rows[i]
        if r < 0 or r >= strings:
            raise ValueError(f"decide_strings: row {r} is not a string of the array "
                             f"({strings} strings)")
        if wide:
            lo, hi = off64[r], off64[r + 1]
        else:
            lo, hi = off32[r], off32[r + 1]
        if lo < 0 or lo > hi or hi > size:
            raise ValueError(f"decide_strings: the offsets of row {r} ({lo}, {hi}) are out "
                             f"of range or not monotone (data of {size} bytes)")
        if all_ascii(base + lo, hi - lo):
            key = url_bytes_key(doc, base + lo, hi - lo, None, agent, NULL)
        else:
            try:
                text = PyUnicode_DecodeUTF8(<const char*>(base + lo), hi - lo, NULL)
            except UnicodeDecodeError:
                slots[i] = STRINGS_SLOT_NONE
                continue
            key = doc._url_key(text, agent, NULL)
        if key != last_key or last_slot < 0:
            last_slot = file_key(ks, small, key)
            last_key = key
        slots[i] = <int32_t>last_slot
    return 0


cdef tuple _VIEW_NAMES = ("offsets", "data", "rows", "allowed", "line", "rule", "reason")
cdef tuple _VIEW_WIDTHS = (0, 1, 8, 1, 4, 4, 1)  # 0: 4 or 8 (string or large_string)


cdef Py_ssize_t take_views(tuple objs, Py_buffer* views, int* taken) except -1:
    """The seven buffers of decide_strings (``_VIEW_NAMES``; the last four writable) held in
    ``views`` (``taken[0]``: how many, for the caller to release whatever happens), checked:
    offsets hold at least one entry, every column at least the largest row + 1. Returns the
    number of rows."""
    cdef int k
    cdef Py_ssize_t i, n, need = 0
    cdef const int64_t* rp
    for k in range(7):
        take_buffer(objs[k], &views[k], PyBUF_WRITABLE if k >= 3 else 0, _VIEW_WIDTHS[k],
                    _VIEW_NAMES[k])
        taken[0] = k + 1
    if views[0].len // views[0].itemsize < 1:
        raise ValueError("decide_strings: offsets is empty (it holds one more entry than the "
                         "array's strings)")
    n = views[2].len // 8
    rp = <const int64_t*>views[2].buf
    for i in range(n):
        if rp[i] >= need:
            need = rp[i] + 1
    for k in range(3, 7):
        if views[k].len // views[k].itemsize < need:
            raise ValueError(f"decide_strings: a column holds "
                             f"{views[k].len // views[k].itemsize} entries, the rows need "
                             f"{need}")
    return n


cdef void write_facts(const int64_t* rp, Py_ssize_t n, const int32_t* slots, const Fact* facts,
                      Py_ssize_t base, Py_buffer* views) noexcept nogil:
    """Row ``rp[i]`` of the columns (``views[3:7]``: allowed, line, rule, reason) from the
    facts of its slot, the rule numbered from ``base``; a row whose bytes are not UTF-8
    gets 0, 0, -1, REASON_INVALID_TEXT."""
    cdef Py_ssize_t i, r
    cdef const Fact* f
    cdef uint8_t* oa = <uint8_t*>views[3].buf
    cdef int32_t* ol = <int32_t*>views[4].buf
    cdef int32_t* orr = <int32_t*>views[5].buf
    cdef uint8_t* oz = <uint8_t*>views[6].buf
    for i in range(n):
        r = rp[i]
        if slots[i] == STRINGS_SLOT_NONE:
            oa[r], ol[r], orr[r], oz[r] = 0, 0, -1, REASON_INVALID_TEXT
            continue
        f = &facts[slots[i]]
        oa[r] = f.allowed
        ol[r] = <int32_t>f.line
        orr[r] = -1 if f.index < 0 else <int32_t>(base + f.index)
        oz[r] = f.reason


def decide_strings(Doc doc not None, offsets, data, rows, user_agent, no_match, tuple out,
                   Py_ssize_t base):
    """The batch API on Arrow string buffers: for each row ``r`` of ``rows`` (an int64
    buffer of indices into the string array whose ``offsets`` (int32 for string, int64 for
    large_string, from the array's first string: ``len(offsets)`` is one more than its
    strings) and ``data`` are given), the facts of the URL ``data[offsets[r]:offsets[r+1]]``
    for ``user_agent`` written at ``r`` of the columns ``out``: ``(allowed, line, rule,
    reason)``, buffers of uint8, int32, int32 and uint8, each at least as long as the
    array. Entry ``r`` equals ``explain(url)``'s fields as ``decide_urls`` gives them, the
    rule numbered from ``base`` (``base`` + its index in the tuple returned, -1 where none
    decided); a URL whose bytes are not UTF-8 gets allowed 0, line 0, rule -1 and reason
    255. Returns the directive index of each rule numbered, in ``decide_urls``' order.
    ValueError for a row or offsets out of range, offsets not monotone, or columns of the
    wrong width or too short; the columns may then be partly written."""
    cdef Py_buffer views[7]
    cdef int taken = 0, k
    cdef Py_ssize_t n
    cdef int64_t no_match_rule
    cdef Py_ssize_t no_match_reason
    cdef int64_t small_keys[SLOTS_SMALL]
    cdef Py_ssize_t small_vals[SLOTS_SMALL]
    cdef Fact small_facts[FACTS_SMALL]
    cdef Fact* small_order[FACTS_SMALL]
    cdef Fact** order = &small_order[0]
    cdef Keys ks
    cdef int32_t* slots = NULL
    cdef str agent = user_agent if type(user_agent) is str else exact_str(user_agent,
                                                                          "user_agent")
    no_match_rule, no_match_reason = no_match
    if not -1 <= no_match_rule <= INDEX_MASK or not 0 <= no_match_reason <= REASON_MAX:
        raise ValueError(f"no_match out of range: {no_match!r}")
    if len(out) != 4:
        raise ValueError("decide_strings: out is (allowed, line, rule, reason)")
    if base < 0:
        raise ValueError(f"decide_strings: base {base} is negative")
    ks.facts, ks.count, ks.cap = &small_facts[0], 0, FACTS_SMALL
    slots_init(&ks.table, small_keys, small_vals, SLOTS_SMALL)
    try:
        n = take_views((offsets, data, rows, *out), views, &taken)
        slots = <int32_t*>xmalloc(max(n, 1) * sizeof(int32_t))
        string_keys(doc, &views[0], &views[1], <const int64_t*>views[2].buf, n, agent, &ks,
                    &small_facts[0], slots)
        every_key_facts(doc, &ks, no_match_rule, <uint8_t>no_match_reason)
        if ks.count > FACTS_SMALL:
            order = <Fact**>xmalloc(ks.count * sizeof(Fact*))
        rules = number_rules(ks.facts, ks.count, order)
        if base + len(rules) > 0x7FFFFFFF:
            raise ValueError(f"decide_strings: rule numbers from {base} pass int32")
        write_facts(<const int64_t*>views[2].buf, n, slots, ks.facts, base, views)
    finally:
        for k in range(taken):
            PyBuffer_Release(&views[k])
        PyMem_Free(slots)
        if ks.facts != &small_facts[0]:
            PyMem_Free(ks.facts)
        if order != &small_order[0]:
            PyMem_Free(order)
        slots_free(&ks.table)
    return rules
