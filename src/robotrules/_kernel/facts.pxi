# Part of robotrules._native (see _native.pxd for the map): facts.pxi.
# What the answers are built from, as plain values: the path of a URL as text (for
# Verdict.path), a fast constructor for the public values (Verdict, Usage, Decisions: the
# facade calls it), the memos of a selection's answers the peer keeps (VerdictMemo,
# UsageMemo: values the facade gives, one call each) and which agent reads which
# (AgentMemos, one per Doc), the Content-Usage path matcher (the kernel's entry_matches over
# the pure reading of each path), and the gather of the batch usage columns.

from cpython.object cimport PyTypeObject
from libc.stdint cimport int8_t
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.dict cimport PyDict_Copy

import types as _types

from ._peer import AGENTS_KEPT as _AGENTS_KEPT

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member
    object PyType_GenericAlloc(PyTypeObject* tp, Py_ssize_t nitems)
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)

cdef enum:
    MAKER_MAX = 16        # fields a Maker writes
    T_OBJECT_EX_ = 16     # structmember.h: a slot holding an object (AttributeError if unset)
    MEMBER_READONLY = 1   # structmember.h: READONLY


cdef object path_text(str url, const unsigned char* u, Py_ssize_t n, const unsigned char* p,
               Py_ssize_t plen):
    """The matchable path ``p[:plen]`` found in ``url`` (whose UTF-8 bytes are ``u[:n]``) as
    text: ``url`` itself when nothing was cut or changed."""
    if p == u and plen == n:
        return url
    return PyUnicode_DecodeUTF8(<const char*>p, plen, "surrogatepass")


cdef class Maker:
    """A fast constructor of a slotted dataclass (``Verdict``, ``Usage``): ``maker(*values)``
    is ``cls(*values)`` without a Python frame, each value stored in its field's slot as the
    dataclass ``__init__`` stores it (no ``__post_init__``, no defaults: every field given).
    ``slots`` are the member descriptors of the fields, in order
    (:func:`robotrules._model.field_slots`); each is checked to be an object slot of ``cls``."""

    cdef object cls
    cdef Py_ssize_t n
    cdef Py_ssize_t offsets[MAKER_MAX]

    def __cinit__(self, cls, slots):
        cdef Py_ssize_t i
        cdef PyMemberDef* m
        slots = tuple(slots)
        if not isinstance(cls, type) or not 0 < len(slots) <= MAKER_MAX:
            raise TypeError("Maker(cls, slots): a class and 1 to 16 member descriptors")
        for i, d in enumerate(slots):
            if type(d) is not _types.MemberDescriptorType or d.__objclass__ is not cls:
                raise TypeError(f"slot {i} is not a member descriptor of {cls.__name__}")
            m = (<PyMemberDescrObject*>d).d_member
            if m.type != T_OBJECT_EX_ or m.flags & MEMBER_READONLY or m.offset <= 0:
                raise TypeError(f"slot {i} of {cls.__name__} is not a writable object slot")
            self.offsets[i] = m.offset
        self.cls = cls
        self.n = len(slots)

    def __call__(self, *values):
        cdef Py_ssize_t i
        if PyTuple_GET_SIZE(values) != self.n:
            raise TypeError(f"{self.cls.__name__} takes {self.n} values")
        obj = self.new()
        for i in range(self.n):
            self.put(obj, i, <object>PyTuple_GET_ITEM(values, i))
        return obj

    cdef inline object new(self):
        """A fresh instance, every slot NULL (zeroed), tracked by the GC."""
        return PyType_GenericAlloc(<PyTypeObject*>self.cls, 0)

    cdef inline void put(self, object obj, Py_ssize_t i, object value) noexcept:
        """Store ``value`` in field ``i`` of a fresh instance (from :meth:`new`, each field
        once: there is nothing to release)."""
        cdef PyObject** at = <PyObject**>((<char*>(<PyObject*>obj)) + self.offsets[i])
        Py_INCREF(value)
        at[0] = <PyObject*>value


cdef class VerdictMemo:
    """The verdict facts of one group selection per deciding key, kept by the peer
    (:meth:`Doc.known_verdict` reads them): each kept by one call, ``keep(key, facts)``, with
    the first seven values ``make`` (a Maker of Verdict, the user agent and the path last)
    takes (the values themselves: the kernel stores them in the verdicts it builds and never
    reads or calls them). At most ``bound`` keys: past it, every one is dropped before the
    next is kept. The keys are C integers in an open-addressing table (linear probing, at
    most half full, grown by doubling), so that a lookup makes no Python int; the facts are
    values that hold no memo (the GC need not see them)."""

    cdef int64_t* keys        # cap slots; EMPTY_KEY where none
    cdef PyObject** values    # the facts tuple of each key (a reference each)
    cdef Py_ssize_t cap, used
    cdef Maker make
    cdef Py_ssize_t bound

    def __cinit__(self, Maker make not None, Py_ssize_t bound):
        if bound < 1:
            raise ValueError("a VerdictMemo keeps at least one key")
        if make.n != 9:
            raise ValueError("a Verdict is 9 values")
        self.make = make
        self.bound = bound

    def __dealloc__(self):
        self._drop()

    cdef void _drop(self) noexcept:
        cdef Py_ssize_t i
        cdef PyObject** values = self.values
        cdef Py_ssize_t cap = self.cap
        self.values = NULL
        self.cap = self.used = 0
        for i in range(cap):
            if values[i] != NULL:
                Py_DECREF(<object>values[i])
        PyMem_Free(values)
        PyMem_Free(self.keys)
        self.keys = NULL

    cdef inline Py_ssize_t _slot(self, int64_t key) noexcept:
        """Where ``key`` is, or the empty slot where it would go (cap > 0)."""
        cdef uint64_t mask = <uint64_t>self.cap - 1
        cdef uint64_t i = (<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15) >> 32
        while True:
            i &= mask
            if self.values[i] == NULL or self.keys[i] == key:
                return <Py_ssize_t>i
            i += 1

    cdef int _grow(self) except -1:
        cdef Py_ssize_t old_cap = self.cap, i, at
        cdef int64_t* old_keys = self.keys
        cdef PyObject** old_values = self.values
        cdef Py_ssize_t cap = 8 if old_cap == 0 else 2 * old_cap
        self.keys = <int64_t*>xmalloc(cap * sizeof(int64_t))
        self.values = <PyObject**>xmalloc(cap * sizeof(PyObject*))
        memset(self.values, 0, cap * sizeof(PyObject*))
        self.cap = cap
        for i in range(old_cap):
            if old_values[i] != NULL:
                at = self._slot(old_keys[i])
                self.keys[at] = old_keys[i]
                self.values[at] = old_values[i]  # (the reference moves)
        PyMem_Free(old_keys)
        PyMem_Free(old_values)
        return 0

    def keep(self, int64_t key, tuple facts not None):
        """Keep the seven values of ``key``'s verdict facts."""
        cdef Py_ssize_t at
        if PyTuple_GET_SIZE(facts) != 7:
            raise ValueError("the facts of a key are seven values")
        if self.used >= self.bound:
            self._drop()
        if 2 * (self.used + 1) > self.cap:
            self._grow()
        at = self._slot(key)
        Py_INCREF(facts)
        if self.values[at] != NULL:
            Py_DECREF(<object>self.values[at])
        else:
            self.used += 1
        self.keys[at] = key
        self.values[at] = <PyObject*>facts

    def clear(self):
        """Drop every key's facts."""
        self._drop()

    def __len__(self):
        return self.used

    cdef inline PyObject* facts_of(self, int64_t key) noexcept:
        """``key``'s facts (a borrowed reference), or NULL: not kept."""
        if self.used == 0:
            return NULL
        return self.values[self._slot(key)]

    cdef object verdict(self, int64_t key, str user_agent, object path):
        """The verdict of ``key`` for ``user_agent`` and ``path``, or None: not kept."""
        cdef PyObject* hit = self.facts_of(key)
        if hit == NULL:
            return None
        return self.build(<tuple>hit, user_agent, path)

    cdef object build(self, tuple facts, str user_agent, object path):
        """The verdict of kept ``facts`` for ``user_agent`` and ``path``."""
        cdef Py_ssize_t i
        v = self.make.new()
        for i in range(7):
            self.make.put(v, i, <object>PyTuple_GET_ITEM(facts, i))
        self.make.put(v, 7, user_agent)
        self.make.put(v, 8, path)
        return v


cdef class PathSet:
    """The Content-Usage rules of one group selection, matched by the kernel's matcher
    (``entry_matches``) over the pure reading of each path
    (:func:`robotrules.aipref._paths.pattern`, as :func:`robotrules._compile._native_form`
    gives it): ``forms[i]`` is rule ``i``'s form, or None for a rule without a path (it
    matches every path at length 0). :meth:`deciding` is the precedence of
    :func:`robotrules.aipref.usage.deciding`: the rules of the longest match, all of them
    on a tie."""

    cdef Entry* entries
    cdef uint8_t* pathless
    cdef Py_ssize_t n
    cdef Pats pats
    cdef dict memo    # the tuple of each set of indices, made once

    def __cinit__(self, forms):
        cdef Py_ssize_t i
        forms = list(forms)
        memset(&self.pats, 0, sizeof(Pats))
        self.n = len(forms)
        if self.n >= NATIVE_MAX:
            raise OverflowError("too many Content-Usage rules")
        self.entries = <Entry*>xmalloc(self.n * sizeof(Entry))
        self.pathless = <uint8_t*>xmalloc(self.n)
        self.memo = {}
        for i in range(self.n):
            form = forms[i]
            self.pathless[i] = form is None
            if form is not None:
                fill_entry(&self.entries[i], <tuple?>form, <uint32_t>i, &self.pats)

    def __dealloc__(self):
        PyMem_Free(self.entries)
        PyMem_Free(self.pathless)
        PyMem_Free(self.pats.data)

    cdef int64_t _best(self, const unsigned char* p, Py_ssize_t plen, uint64_t* mask,
                       Py_ssize_t words) noexcept:
        """The longest match length (-1: none) and, in ``mask``, the rules that reach it."""
        cdef Py_ssize_t i
        cdef int64_t best = -1, got
        memset(mask, 0, words * sizeof(uint64_t))
        for i in range(self.n):
            if self.pathless[i]:
                got = 0
            elif entry_matches(&self.entries[i], p, plen, NULL, self.pats.data):
                got = self.entries[i].prio
            else:
                continue
            if got > best:
                best = got
                memset(mask, 0, words * sizeof(uint64_t))
            if got == best:
                mask[i >> 6] |= (<uint64_t>1) << (i & 63)
        return best

    cdef tuple _deciding(self, const unsigned char* p, Py_ssize_t plen):
        cdef Py_ssize_t words = (self.n + 63) >> 6, i
        cdef uint64_t small[4]
        cdef uint64_t* mask = &small[0] if words <= 4 else <uint64_t*>xmalloc(
            words * sizeof(uint64_t))
        try:
            self._best(p, plen, mask, words)
            if words == 1:
                key = mask[0]
            else:
                key = tuple([mask[i] for i in range(words)])
            hit = self.memo.get(key)
            if hit is None:
                hit = tuple([i for i in range(self.n) if mask[i >> 6] >> (i & 63) & 1])
                if len(self.memo) < 4096:
                    self.memo[key] = hit
            return <tuple>hit
        finally:
            if mask != &small[0]:
                PyMem_Free(mask)

    def deciding(self, path):
        """The indices of the rules that decide ``path`` (a matchable path, as the dialect's
        spec gives it), in rule order; ``()`` when none matches."""
        return self.deciding_of(exact_str(path, "path"))

    cdef tuple deciding_of(self, str path):
        if PyUnicode_IS_ASCII(path):
            return self._deciding(<const unsigned char*>PyUnicode_DATA(path),
                                  PyUnicode_GET_LENGTH(path))
        data = path.encode("utf-8", "surrogatepass")
        return self._deciding(<const unsigned char*>PyBytes_AS_STRING(data),
                              PyBytes_GET_SIZE(data))

    def classify(self, paths, allowed):
        """Per path, the index in the returned list of distinct deciding sets (``-1`` where
        ``allowed[i]`` is 0: no preference attaches to a URL that may not be fetched):
        ``(array('l') of classes, [deciding tuples])``, one C loop."""
        cdef Py_ssize_t i, n = len(paths)
        cdef const uint8_t[::1] ok = allowed
        cdef long[::1] view
        cdef dict at = {}
        cdef list sets = []
        if ok.shape[0] != n:
            raise ValueError("paths and allowed differ in length")
        out = array("l", bytes(sizeof(long) * n))
        view = out
        for i in range(n):
            if not ok[i]:
                view[i] = -1
                continue
            d = self.deciding_of(exact_str(paths[i], "path"))
            c = at.get(d)
            if c is None:
                c = at[d] = len(sets)
                sets.append(d)
            view[i] = <long>c
        return out, sets


cdef class UsageMemo:
    """The usage answers of one group selection (scope, vocabulary), kept by the peer
    (:meth:`Doc.known_usage` reads them): the selection's :class:`VerdictMemo` (the crawl
    verdict), the matcher of its Content-Usage paths (a :class:`PathSet`, or None: one answer
    for every path), and per set of deciding rules the answer ``(categories, lines,
    statements)``, each kept by one call, ``keep(chosen, answer)``. ``make`` (a Maker of
    Usage) takes nine values: crawl, categories (each Usage gets its own copy of the kept
    dict), lines, statements, the user agent, the path, ``scope``, the verdict and
    ``vocabulary``. The kernel stores the values and never reads into or calls them. At
    most ``bound`` answers: past it, every one is dropped before the next is kept."""

    cdef VerdictMemo verdicts
    cdef PathSet paths
    cdef Maker make
    cdef str scope
    cdef str vocabulary
    cdef dict answers
    cdef Py_ssize_t bound

    def __cinit__(self, VerdictMemo verdicts not None, PathSet paths, Maker make not None,
                  str scope not None, str vocabulary not None, Py_ssize_t bound):
        if bound < 1:
            raise ValueError("a UsageMemo keeps at least one answer")
        if make.n != 9:
            raise ValueError("a Usage is 9 values")
        self.verdicts = verdicts
        self.paths = paths
        self.make = make
        self.scope = scope
        self.vocabulary = vocabulary
        self.answers = {}
        self.bound = bound

    def keep(self, tuple chosen not None, tuple answer not None):
        """Keep the answer ``(categories, lines, statements)`` of the deciding rules
        ``chosen`` (a dict and two tuples)."""
        if (PyTuple_GET_SIZE(answer) != 3 or type(answer[0]) is not dict
                or type(answer[1]) is not tuple or type(answer[2]) is not tuple):
            raise ValueError("an answer is a dict and two tuples")
        if len(self.answers) >= self.bound:
            self.answers.clear()
        self.answers[chosen] = answer

    def clear(self):
        """Drop every answer."""
        self.answers.clear()

    def __len__(self):
        return len(self.answers)

    cdef object usage(self, int64_t key, str user_agent, str path):
        """The Usage of deciding ``key`` for ``user_agent`` and ``path``, or None: its
        verdict facts or its answer not kept."""
        cdef Maker make = self.make
        cdef PyObject* hit = self.verdicts.facts_of(key)
        if hit == NULL:
            return None
        facts = <tuple>hit
        if not <object>PyTuple_GET_ITEM(facts, 0):  # (no preference attaches to a URL
            # that may not be fetched)
            u = make.new()
            make.put(u, 0, False)
            make.put(u, 1, {})
            make.put(u, 2, ())
            make.put(u, 3, ())
        else:
            chosen = () if self.paths is None else self.paths.deciding_of(path)
            got = self.answers.get(chosen)
            if got is None:
                return None
            answer = <tuple>got
            u = make.new()
            make.put(u, 0, True)
            make.put(u, 1, PyDict_Copy(<object>PyTuple_GET_ITEM(answer, 0)))
            make.put(u, 2, <object>PyTuple_GET_ITEM(answer, 1))
            make.put(u, 3, <object>PyTuple_GET_ITEM(answer, 2))
        make.put(u, 4, user_agent)
        make.put(u, 5, path)
        make.put(u, 6, self.scope)
        make.put(u, 7, self.verdicts.build(facts, user_agent, path))
        make.put(u, 8, self.vocabulary)
        return u


cdef class AgentMemos:
    """Which memos answer which user agent, for one Doc (its ``memos_``, made on the first
    ``keep_verdicts`` or ``keep_usages``): per agent string as the caller wrote it, the
    :class:`VerdictMemo` of its selection and the :class:`UsageMemo` it was last given (one
    scope and vocabulary), each bound by one call from the facade. At most ``AGENTS_KEPT``
    agents each (robotrules._peer): past it, every binding is dropped before the next is
    kept. The kernel stores the memos and reads only their own fields."""

    cdef dict verdicts    # user agent -> VerdictMemo
    cdef dict usages      # user agent -> UsageMemo

    def __cinit__(self):
        self.verdicts = {}
        self.usages = {}

    cdef void bind_verdicts(self, str user_agent, VerdictMemo memo) except *:
        if len(self.verdicts) >= _AGENTS_KEPT:
            self.verdicts.clear()
        self.verdicts[user_agent] = memo

    cdef void bind_usages(self, str user_agent, UsageMemo memo) except *:
        if len(self.usages) >= _AGENTS_KEPT:
            self.usages.clear()
        self.usages[user_agent] = memo

    cdef object verdict(self, Doc doc, str url, str user_agent):
        """The verdict of ``url`` for ``user_agent`` from its memo, or None: no memo bound
        or no facts kept for the deciding key."""
        cdef PyObject* path = NULL
        cdef int64_t key
        hit = self.verdicts.get(user_agent)
        if hit is None:
            return None
        key = doc._url_key(url, user_agent, &path)
        text = <object>path
        Py_DECREF(text)  # the reference _url_key gave, now held by text
        return (<VerdictMemo>hit).verdict(key, user_agent, text)

    cdef object usage(self, Doc doc, str url, str user_agent, object scope, object vocabulary):
        """The Usage of ``url`` for ``user_agent`` in ``scope`` and ``vocabulary`` from the
        memo it was last given, or None: none bound for this scope and vocabulary, or its
        verdict facts or answer not kept."""
        cdef PyObject* path = NULL
        cdef int64_t key
        cdef UsageMemo memo
        hit = self.usages.get(user_agent)
        if hit is None:
            return None
        memo = <UsageMemo>hit
        if not (memo.scope is scope or (type(scope) is str and memo.scope == <str>scope)):
            return None
        if not (memo.vocabulary is vocabulary or (
                type(vocabulary) is str and memo.vocabulary == <str>vocabulary)):
            return None
        key = doc._url_key(url, user_agent, &path)
        text = <object>path
        Py_DECREF(text)  # the reference _url_key gave, now held by text
        return memo.usage(key, user_agent, text)


def gather(classes, table):
    """``array('b')`` with ``table[classes[i]]`` at ``i`` (``-1`` where ``classes[i]`` is
    ``-1``): the batch usage columns filled from each distinct answer, in one C loop."""
    cdef const long[::1] c = classes
    cdef const int8_t[::1] t = table
    cdef Py_ssize_t i, n = c.shape[0], m = t.shape[0]
    cdef long k
    out = array("b", bytes(n))
    cdef int8_t[::1] o = out
    for i in range(n):
        k = c[i]
        if k < 0:
            o[i] = -1
        elif k < m:
            o[i] = t[k]
        else:
            raise IndexError("class out of range")
    return out
