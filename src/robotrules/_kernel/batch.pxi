# Part of robotrules._native (see _native.pxd for the map): batch.pxi.
# The batch API's loops over every URL's key: distinct keys, and the columns filled from the
# facts of each distinct key.

cdef int cmp_int64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x > y) - (x < y)


cimport cpython.array as carray
from cpython.object cimport Py_SIZE

cdef int64_t _NO_KEYS = 0  # what an empty array's items point at


cdef const int64_t* q_data(object keys, str name, Py_ssize_t* n) except NULL:
    """The items of an ``array('q')`` (the exact type: its buffer is read in place, without a
    memoryview), or TypeError."""
    cdef carray.array a
    if type(keys) is not array:
        raise TypeError(f"{name} must be array('q'), not {type(keys).__name__}")
    a = <carray.array>keys
    if a.ob_descr.typecode != c'q' or a.ob_descr.itemsize != sizeof(int64_t):
        raise TypeError(f"{name} must be array('q')")
    n[0] = Py_SIZE(a)
    return <const int64_t*>a.data.as_voidptr if n[0] else <const int64_t*>&_NO_KEYS


def distinct_keys(keys):
    """The distinct values of ``keys`` (an ``array('q')``), sorted, as an ``array('q')``."""
    cdef Py_ssize_t n, i, m = 0
    cdef const int64_t* k = q_data(keys, "keys", &n)
    cdef carray.array out = carray.clone(<carray.array>keys, n, False)
    cdef int64_t* o = <int64_t*>out.data.as_voidptr
    cdef Py_ssize_t j
    cdef int64_t x
    if n == 0:
        return out
    # a call's URLs share few keys: gather them by a scan of those seen while they are few
    for i in range(n):
        x = k[i]
        for j in range(m):
            if o[j] == x:
                break
        else:
            if m == SORT_SMALL_MAX:
                m = -1
                break
            o[m] = x
            m += 1
    if m >= 0:
        sort_int64_small(o, m)
        carray.resize(out, m)
        return out
    m = 0  # many distinct keys: sorted, then each once
    memcpy(o, k, n * sizeof(int64_t))
    qsort(o, n, sizeof(int64_t), cmp_int64)
    for i in range(1, n):
        if o[i] != o[m]:
            m += 1
            o[m] = o[i]
    carray.resize(out, m + 1)
    return out


cdef void sort_int64_small(int64_t* a, Py_ssize_t n) noexcept nogil:
    """Insertion sort of a short list (the batch API's keys of one call are few)."""
    cdef Py_ssize_t i, j
    cdef int64_t x
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


def fill_columns(keys, table, allowed, line, rule, reason):
    """The batch API's columns: for each of ``keys``, the facts of its entry in the sorted
    ``table`` (``allowed``/``reason`` bytes, ``line``/``rule`` int64, one per table entry),
    found by bisection: four ``array`` columns, one entry per key, in one C loop."""
    cdef Py_ssize_t n, nt, nl, nr, i, lo, hi, mid
    cdef const int64_t* k = q_data(keys, "keys", &n)
    cdef const int64_t* t = q_data(table, "table", &nt)
    cdef const int64_t* tl = q_data(line, "line", &nl)
    cdef const int64_t* tr = q_data(rule, "rule", &nr)
    cdef const uint8_t* ta
    cdef const uint8_t* tz
    cdef int64_t key
    if type(allowed) is not bytes or type(reason) is not bytes:
        raise TypeError("allowed and reason must be bytes")
    if not (PyBytes_GET_SIZE(allowed) == nl == nr == PyBytes_GET_SIZE(reason) == nt):
        raise ValueError("one fact per table entry")
    ta = <const uint8_t*>PyBytes_AS_STRING(allowed)
    tz = <const uint8_t*>PyBytes_AS_STRING(reason)
    cdef carray.array out_a = carray.clone(_BYTE_COLUMN, n, False)
    cdef carray.array out_l = carray.clone(<carray.array>keys, n, False)
    cdef carray.array out_r = carray.clone(<carray.array>keys, n, False)
    cdef carray.array out_z = carray.clone(_BYTE_COLUMN, n, False)
    cdef uint8_t* oa = <uint8_t*>out_a.data.as_voidptr
    cdef int64_t* ol = <int64_t*>out_l.data.as_voidptr
    cdef int64_t* orr = <int64_t*>out_r.data.as_voidptr
    cdef uint8_t* oz = <uint8_t*>out_z.data.as_voidptr
    for i in range(n):
        key = k[i]
        lo = 0
        hi = nt
        while lo < hi:
            mid = (lo + hi) >> 1
            if t[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo >= nt or t[lo] != key:
            raise KeyError(key)
        oa[i] = ta[lo]
        ol[i] = tl[lo]
        orr[i] = tr[lo]
        oz[i] = tz[lo]
    return out_a, out_l, out_r, out_z


cdef carray.array _BYTE_COLUMN = array("B")
