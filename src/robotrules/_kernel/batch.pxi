# Part of robotrules._native (see _native.pxd for the map): batch.pxi.
# The batch API's loops over every URL's key: distinct keys, and the columns filled from the
# facts of each distinct key.

cdef int cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


def distinct_keys(keys):
    """The distinct values of ``keys`` (an ``array('q')``), sorted, as an ``array('q')``."""
    cdef const int64_t[::1] k = keys
    cdef Py_ssize_t n = k.shape[0], i, m = 0
    out = array("q", bytes(8 * n))
    cdef int64_t[::1] o = out
    if n == 0:
        return out
    memcpy(&o[0], &k[0], n * sizeof(int64_t))
    qsort(&o[0], n, sizeof(int64_t), cmp_int64)
    for i in range(1, n):
        if o[i] != o[m]:
            m += 1
            o[m] = o[i]
    del o
    del out[m + 1:]
    return out


def fill_columns(keys, table, allowed, line, rule, reason):
    """The batch API's columns: for each of ``keys``, the facts of its entry in the sorted
    ``table`` (``allowed``/``reason`` bytes, ``line``/``rule`` int64, one per table entry),
    found by bisection: four ``array`` columns, one entry per key, in one C loop."""
    cdef const int64_t[::1] k = keys
    cdef const int64_t[::1] t = table
    cdef const uint8_t[::1] ta = allowed
    cdef const int64_t[::1] tl = line
    cdef const int64_t[::1] tr = rule
    cdef const uint8_t[::1] tz = reason
    cdef Py_ssize_t n = k.shape[0], nt = t.shape[0], i, lo, hi, mid
    if not (ta.shape[0] == tl.shape[0] == tr.shape[0] == tz.shape[0] == nt):
        raise ValueError("one fact per table entry")
    out_a = array("B", bytes(n))
    out_l = array("q", bytes(8 * n))
    out_r = array("q", bytes(8 * n))
    out_z = array("B", bytes(n))
    cdef uint8_t[::1] oa = out_a
    cdef int64_t[::1] ol = out_l
    cdef int64_t[::1] orr = out_r
    cdef uint8_t[::1] oz = out_z
    for i in range(n):
        lo = 0
        hi = nt
        while lo < hi:
            mid = (lo + hi) >> 1
            if t[mid] < k[i]:
                lo = mid + 1
            else:
                hi = mid
        if lo >= nt or t[lo] != k[i]:
            raise KeyError(k[i])
        oa[i] = ta[lo]
        ol[i] = tl[lo]
        orr[i] = tr[lo]
        oz[i] = tz[lo]
    return out_a, out_l, out_r, out_z
