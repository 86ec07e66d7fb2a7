# cython: language_level=3, boundscheck=False, wraparound=False
"""robotrules' native driver for the benchmark: the kernel's parsed file
(``robotrules._native.Doc``) made and asked from a loop in C, timed in CPU seconds
(``clock_gettime(CLOCK_PROCESS_CPUTIME_ID)``), beside the memchr line scan (line_scan.h, the
C driver's) over the same bodies. bench_native builds it with cythonize against the
declarations of the robotrules it measures (``src/robotrules/_native.pxd``).

The declarations give the kernel's structs and C functions, not the ``Doc`` class: a parse is
the type's call and a query its ``is_allowed`` method, both through the C-API of Python
objects (no interpreter loop, no Python frame of ours). :func:`call_cost` measures what that
costs on an empty body. The kernel's line scanner (``scan``, the tokenizer a parse starts
with) is declared, and :func:`tokenize` calls it directly, as a parse does.
"""

from cpython.mem cimport PyMem_Free
from libc.stdint cimport uint32_t
from libc.string cimport memset
from posix.time cimport CLOCK_PROCESS_CPUTIME_ID, clock_gettime, timespec

from robotrules._native cimport DIRS_SMALL, NATIVE_MAX, U32Vec, ready
from robotrules._native cimport scan as kernel_scan

from robotrules._native import Doc


cdef extern from "line_scan.h":
    size_t line_scan(const char* p, size_t n) nogil


cdef double cpu_now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return <double>t.tv_sec + <double>t.tv_nsec * 1e-9


cdef int check(list bodies) except -1:
    for body in bodies:
        if type(body) is not bytes:
            raise TypeError("bodies are bytes")
        if len(<bytes>body) > NATIVE_MAX:
            raise ValueError(f"a body over the kernel's {NATIVE_MAX} bytes")
    return 0


cdef object ask_pass(list bodies, list queries, str dialect, Py_ssize_t first):
    """Each body parsed and asked its queries (only the first when ``first``)."""
    cdef Py_ssize_t i, k, nq, n = len(bodies)
    cdef size_t allowed = 0
    cdef list qs
    for i in range(n):
        doc = Doc(bodies[i], dialect)
        qs = <list>queries[i]
        nq = len(qs)
        if first and nq > 1:
            nq = 1
        for k in range(nq):
            agent, url = <tuple>qs[k]
            allowed += doc.is_allowed(url, user_agent=agent) is True
    return allowed


cdef object parse_pass(list bodies, str dialect):
    cdef Py_ssize_t i, n = len(bodies)
    for i in range(n):
        Doc(bodies[i], dialect)
    return n


cdef size_t scan_pass(list bodies) except? 0:
    cdef Py_ssize_t i, n = len(bodies)
    cdef size_t lines = 0
    cdef bytes b
    for i in range(n):
        b = <bytes>bodies[i]
        lines += line_scan(<const char*>b, <size_t>len(b))
    return lines


cdef Py_ssize_t tokenize_one(bytes b, int d) except -1:
    """The kernel's scan of one body (after a UTF-8 byte-order mark) as Doc._build makes it
    (a small file's directives on the stack, no noted lines): the directive words written."""
    cdef uint32_t room[DIRS_SMALL]
    cdef U32Vec out
    cdef const unsigned char* t = <const unsigned char*><char*>b
    cdef Py_ssize_t n = len(b)
    if n >= 3 and t[0] == 0xEF and t[1] == 0xBB and t[2] == 0xBF:
        t += 3
        n -= 3
    memset(&out, 0, sizeof(U32Vec))
    if 3 * (n // 32) + 48 <= DIRS_SMALL:  # Doc._build's test
        out.data = room
        out.cap = DIRS_SMALL
        out.borrowed = True
    try:
        kernel_scan(t, n, d, &out, NULL)
        return out.n
    finally:
        if out.data != NULL and not out.borrowed:
            PyMem_Free(out.data)


cdef object tokenize_pass(list bodies, int d):
    cdef Py_ssize_t i, n = len(bodies), words = 0
    for i in range(n):
        words += tokenize_one(<bytes>bodies[i], d)
    return words


cdef list timed(int mode, list bodies, list queries, str dialect, int passes, object reset):
    """One untimed pass, then ``passes`` timed ones (``reset`` called before each, untimed):
    the CPU seconds of each."""
    cdef list out = []
    cdef double t0
    cdef int p
    cdef int d = dialect_code(dialect) if mode == 4 else 0
    check(bodies)
    for p in range(passes + 1):
        if reset is not None:
            reset()
        t0 = cpu_now()
        if mode == 0:
            ask_pass(bodies, queries, dialect, 1)
        elif mode == 1:
            ask_pass(bodies, queries, dialect, 0)
        elif mode == 2:
            parse_pass(bodies, dialect)
        elif mode == 4:
            tokenize_pass(bodies, d)
        else:
            scan_pass(bodies)
        if p:
            out.append(cpu_now() - t0)
    return out


def first(list bodies, list queries, str dialect, int passes, reset=None):
    """Parse + first query per file: the CPU seconds of each timed pass."""
    return timed(0, bodies, queries, dialect, passes, reset)


def cold(list bodies, list queries, str dialect, int passes, reset=None):
    """Parse + every query per file: the CPU seconds of each timed pass."""
    return timed(1, bodies, queries, dialect, passes, reset)


def parse(list bodies, str dialect, int passes, reset=None):
    """Parse alone per file: the CPU seconds of each timed pass."""
    return timed(2, bodies, [], dialect, passes, reset)


cdef int dialect_code(str dialect) except -1:
    from robotrules import _tables
    ready()
    return _tables.CODES.index(dialect)


def tokenize(list bodies, str dialect, int passes, reset=None):
    """The kernel's line scanner (cimported ``scan``) alone per file: the CPU seconds of each
    timed pass."""
    return timed(4, bodies, [], dialect, passes, reset)


def directive_words(list bodies, str dialect):
    """What the kernel's scan wrote for each body (words of its directive stream)."""
    cdef int d = dialect_code(dialect)
    check(bodies)
    return [tokenize_one(<bytes>b, d) for b in bodies]


def scan(list bodies, int passes):
    """The memchr line scan per file: the CPU seconds of each timed pass."""
    return timed(3, bodies, [], "", passes, None)


def answers(list bodies, list queries, str dialect):
    """Every query's verdict, file by file, as the timed passes reach it."""
    cdef list out = []
    check(bodies)
    for body, qs in zip(bodies, queries):
        doc = Doc(body, dialect)
        for agent, url in qs:
            out.append(doc.is_allowed(url, user_agent=agent) is True)
    return out


def lines(list bodies):
    """line_scan of each body (what the scan pass counts)."""
    return [line_scan(<const char*><bytes>b, <size_t>len(<bytes>b)) for b in bodies]


def call_cost(str dialect, int calls):
    """CPU seconds per parse + query of an empty body from this driver's loop: what the
    Python object calls cost before any parsing."""
    cdef int i
    cdef double t0 = cpu_now()
    for i in range(calls):
        Doc(b"", dialect).is_allowed("/", user_agent="a")
    return (cpu_now() - t0) / calls
