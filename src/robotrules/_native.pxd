# cython: language_level=3
"""The map of the native kernels: the C types, constants and functions its parts share.

``_native.pyx`` is only the list of its parts (``_kernel/*.pxi``, included in that order into
one C module); this file declares what they share, so that a reader finds every struct and
every function a part may call here, with the part that defines it. Small ``inline`` helpers
stay in the part that owns them (Cython defines inline functions where they are declared).

Parts, by job:

- ``tables.pxi``: the constants checked against the pure core, the tables read off the pure
  modules on first use (:func:`ready`), one ``DialectTables`` per dialect code (its flags and
  byte tables, from its spec: the kernel branches on these, never on a code);
- ``memory.pxi``: growable ``uint32`` vectors, the hash map, hashes, ``xmalloc``;
- ``tokenize.pxi``: the field-name memo, the line scanner (``scan``) and :func:`tokenize`;
- ``patterns.pxi``: a rule value's normal form (``fast_entry``, or the pure reading through
  ``pattern_of``), the normalised bodies of a file (``Pats``), ``pattern_form`` for tests;
- ``build.pxi``: a matcher compiled from the rules of a group selection, its literal index;
- ``match.pxi``: a compiled matcher asked about a path (``matcher_best``);
- ``urls.pxi``: a URL's path as the dialect reads it (``path_span``, ``normal_path``);
- ``doc.pxi``: :class:`Doc`, the parsed file (groups, agent tokens, selections), and the
  Python boundary (``exact_str``);
- ``batch.pxi``: the batch API (``decide_urls``: every URL's key in one loop, filed under its
  distinct key; each key's facts, ``key_facts``, found from the key and the directive
  stream).
- ``arrow.pxi``: the batch API on Arrow string buffers (``decide_strings``: the URLs read
  in place from a string array's offsets and data, each offset checked first; batch.pxi's
  table of distinct keys; the facts written into the caller's columns at the rows named).
- ``facts.pxi``: the facts of an answer (the path as text, ``Maker`` the fast constructor
  of the public values, ``VerdictMemo`` a selection's verdict facts, ``PathSet`` the
  Content-Usage matcher, ``UsageMemo`` a selection's usage answers, ``gather``).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from libc.stdint cimport (int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                           uint64_t)
from libc.stdlib cimport qsort
from libc.string cimport memchr, memcmp, memcpy, memset

# -- C declarations the parts use ----------------------------------------------------------

cdef extern from "string.h":
    void* memmem(const void* hay, size_t hn, const void* needle, size_t nn) nogil

cdef extern from "Python.h":
    void* PyUnicode_DATA(object)
    int PyUnicode_KIND(object)
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    bint PyUnicode_IS_ASCII(object)
    object PyUnicode_DecodeLatin1(const char* s, Py_ssize_t size, const char* errors)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    PyObject* PyDict_GetItem(object, object)
    const Py_ssize_t PY_SSIZE_T_MAX


# -- constants (checked against the pure core in tables.pxi) ----------------------------------

cdef enum:
    KIND_SHIFT = 25
    LINE_MASK = (1 << 25) - 1
    MAX_LINE = 2083 * 8 - 1
    INDEX_BITS = 28
    PREFIX = 0
    EXACT = 1
    STAR = 2
    WILD = 3
    LINEAR_MAX = 16
    SMALL_RULES = 32  # a selection's rules (Doc._compile) and a small group's other
                      # entries (compile_rules) up to this many are kept on the stack
    RAW_ELSEWHERE = 0xFFFFFFFF  # fast_entry: the value is not in the text (write it in pats)
    NATIVE_MAX = 1 << 28  # bodies up to 256 MiB (offsets in 32 bits, directives in 28);
                          # a longer body is read by the pure peer
    LIT_MIN = 48      # longer lists of wildcard rules get a literal index:
    LIT_NOW = 512     # at once when this long, or on a path this long,
    LIT_PATH = 256
    LIT_AFTER = 24    # else after this many queries scanned the list: a file seen once,
                      # for the first URLs of its site, rarely pays for an index (12 made
                      # the cold workload of benchmarks/ 5% slower)
    LIT_SAMPLE = 2048  # rules whose runs of bytes are counted to rank them
    FILE_LEVELS = 16  # file_refs nests at most this deep (3 KiB of stack a level), then merges
    FILE_SPLIT = 256  # and files this many refs or more two halves side by side (file_wide)
    SCAN_MIN = 32     # Doc._best: a selection of this many rules or more answers its queries
                      # by reading them (Doc._scan) until the readings have cost about what
                      # compiling them does (Build.scan_work), then compiles:
    SCAN_WORK = 16    # a compile's worth, per rule of the selection, in the units of
    READ_WORK = 16    # a rule a reading reads (a rule it passes over costs one)
    HEAD_ANY = 0xFFFF  # Build.heads: no head to pass over by (two bytes above 127 are
                       # in every dialect's scan_stop: never a head)
    HEAD_NEEDLE = 0x8000  # Build.heads: the two bytes after the value's first '*'
    READ_NONE = 0     # read_rule: an empty value (never decides)
    READ_PLAIN = 1    # a plain prefix
    READ_ONE = 2      # one entry from the pool
    READ_PAIR = 3     # an entry and its companion
    LIT_NONE = -1
    LIT_LATER = -2
    LIT_WANTED = -3
    NEED_INDEX = -2   # matcher_best: build the wanted indexes, then ask again
    # entry flags
    F_KIND = 3
    F_ANCHORED = 4
    F_ALLOW = 8
    F_PATS = 16
    # roles of stream kinds in the group index
    R_OTHER = 0
    R_UA = 1
    R_ALLOW = 2
    R_DISALLOW = 3
    R_BLANK = 4
    R_ENDS = 5


# the bytes the kernels look for, by name (ASCII; checked against the characters below)
cdef enum:
    C_NUL = 0
    C_TAB = 9          # '\t'
    C_LF = 10          # '\n'
    C_CR = 13          # '\r'
    C_SPACE = 32       # ' '
    C_HASH = 35        # '#'
    C_DOLLAR = 36      # '$'
    C_PERCENT = 37     # '%'
    C_STAR = 42        # '*'
    C_SLASH = 47       # '/'
    C_COLON = 58       # ':'
    C_SEMICOLON = 59   # ';'
    C_QUESTION = 63    # '?'
    ASCII_CASE = 0x20  # the bit that makes an ASCII letter lower-case


cdef struct U32Vec:
    uint32_t* data
    Py_ssize_t n
    Py_ssize_t cap
    bint borrowed  # data is another's (a stack array, a Build's room): see vec_borrow


cdef enum:
    KEY_SLOTS = 1024
    KEY_MAX = 27

cdef struct KeySlot:
    uint32_t hash
    int16_t kind  # -1: empty
    uint8_t lenient_read
    uint8_t n
    unsigned char key[KEY_MAX + 1]


cdef extern from *:
    """
    /* robotrules' Entry (_native.pxd): 16 bytes. The widths below hold the largest value
       accepted input gives (checked at import and in ready(), tables.pxi): a length is at
       most PATTERN_GROWTH * MAX_LINE = 99,978 < 2 ** 17, a priority at most MAX_PRIO =
       2 ** 23 - 1, the flags below 2 ** 5. */
    typedef struct {
        uint32_t off;
        uint32_t index;
        uint64_t len : 17;
        uint64_t plen : 17;
        uint64_t prio : 23;
        uint64_t flags : 5;
    } robotrules_Entry;
    """
    # one rule of a matcher: 16 bytes (four words of a U32Vec, see ENTRY_WORDS); the C
    # struct packs the last four fields into one 64-bit word (bit-fields: never take their
    # address)
    ctypedef struct Entry "robotrules_Entry":
        uint32_t off      # offset of the pattern body in the text, or in the pats (F_PATS)
        uint32_t index    # directive index (the earliest line wins ties)
        uint32_t len      # body length in bytes (17 bits: ENTRY_LEN)
        uint32_t plen     # literal prefix length (up to the first '*'; 17 bits)
        uint32_t prio     # priority: the pattern's length as counted (RFC 9309 2.2.2), clamped
                          # at MAX_PRIO (23 bits: PRIO_BITS)
        uint8_t flags     # kind | F_ANCHORED | F_ALLOW | F_PATS (5 bits)

cdef enum:
    ENTRY_WORDS = 4   # sizeof(Entry) // sizeof(uint32_t), checked in match.pxi
    ENTRY_LEN_BITS = 17  # Entry.len and .plen: a normal form is at most PATTERN_GROWTH *
    ENTRY_LEN = (1 << 17) - 1  # MAX_LINE bytes (checked by ready())
    PRIO_BITS = 23    # Entry.prio: at most MAX_PRIO (checked at import)
    FLAG_BITS = 5     # Entry.flags: below F_PATS << 1
    NODE_LEN_BITS = 24  # a prefix is at most PATTERN_GROWTH * MAX_LINE bytes: checked at import
    NODE_LEN = (1 << 24) - 1


cdef struct Node:  # 16 bytes: one per distinct prefix of an indexed matcher
    uint32_t off      # the prefix (offset; F_PATS in its flags)
    uint32_t lenf     # its length (the low NODE_LEN_BITS bits: node_len) and, above, its
                      # flags (node_flags: F_ALLOW of the plain rule | F_PATS)
    uint32_t plain    # directive index of the best plain rule with exactly this prefix
    int32_t parent    # the longest other prefix that is a prefix of this one, or -1


cdef struct Node8:  # 8 bytes: a Node of a matcher whose every node fits (nodes_narrow;
    # most: a file under 64 KiB, a plain rule's directive index below NO_PLAIN8, fewer
    # than 2 ** 15 nodes); Matcher.narrow says which its nodes are
    uint16_t off      # the prefix's offset (F_PATS in the flags)
    uint16_t lenf     # its length (the low NODE8_LEN_BITS bits) and, above, F_ALLOW | F_PATS
                      # shifted by NODE8_FLAG_SHIFT (bits 14 and 15)
    uint16_t plain    # the plain rule's directive index, or NO_PLAIN8
    int16_t parent    # a node index below NODE8_MAX_NODES, or -1

cdef enum:
    NODE8_LEN_BITS = 14
    NODE8_LEN = (1 << 14) - 1
    NODE8_FLAG_SHIFT = 11   # F_ALLOW (8) and F_PATS (16) land on bits 14 and 15
    NODE8_MAX_NODES = 1 << 15
    NO_PLAIN8 = 0xFFFF


cdef struct Build:  # what a Doc keeps until every selection is compiled (then freed)
    # each rule (vstart, index, vlen | RULE_ALLOW), where each group's rules start, each
    # selection's groups and where they start; per rule, its entries in the pool (MEMO_NONE
    # until read; see pattern_entries). Until the first query, sel_groups holds each
    # user-agent line as (vstart, vlen, group): Doc._index makes the tokens and selections
    U32Vec rule_words, gstart, sel_groups, sel_start, pool
    uint32_t* pat_memo
    uint32_t nrules
    uint32_t compiled
    uint32_t busy     # compiles under way (a Python call inside one may let another run):
                      # the Build is freed only when none is
    # entries and nodes of the compiled matchers, and the most they may hold together (past
    # it, the others are dropped before one more is compiled: see Doc._compile)
    uint64_t live, budget
    # made by Doc._index_agents when every selection's matcher together fits the budget (no
    # compiled matcher is ever dropped), else NULL: per group, the selections not compiled
    # yet that read it; ``dead``, the rules of the groups none reads any more, given back by
    # Doc._shrink_build once they are half of the rules kept
    uint32_t* readers
    uint32_t dead
    # per selection, what its readings (Doc._scan) have cost so far, in SCAN_WORK's units (at
    # most (SCAN_WORK + READ_WORK) per rule of the file: no overflow); made with the first
    # reading, else NULL
    uint64_t* scan_work
    # per rule, its value's first two bytes (little-endian), or the two after its first '*'
    # (with HEAD_NEEDLE), or HEAD_ANY (Doc._scan_heads): Doc._scan passes over a rule whose
    # head is not the path's, or whose needle the path lacks, without reading its value;
    # made by the first reading, else NULL (and again after Doc._shrink_build)
    uint16_t* heads
    # the Build is one block: after this struct, the room its first vectors borrow (made to
    # measure by Doc._build: rule_words, gstart and sel_groups there, then the room of
    # Doc._index_agents' selections, sel_room: sel_groups' and sel_start's), all freed with it
    uint32_t* sel_room


cdef struct NodeLit:  # a node's literal index state, kept only by a matcher with a long list
    int32_t lit       # a LitIndex over its other rules, or LIT_NONE, LIT_LATER, LIT_WANTED
    uint8_t scans     # queries that scanned them while they wait for an index


cdef struct HashMap:  # open addressing, linear probing; power-of-two capacity
    uint64_t* keys  # key + 1, 0: empty
    uint32_t* vals
    uint32_t cap
    uint32_t used


cdef struct LitIndex:
    uint32_t first    # the entries it indexes: entries[first : first + count]
    uint32_t count
    uint32_t nbuckets
    uint32_t* bstart  # bucket b: members[bstart[b] : bstart[b + 1]] (entry indices)
    uint32_t* members
    uint32_t nrest    # entries without a literal after the prefix, scanned
    uint32_t* rest
    HashMap table     # run of bytes (see window) -> bucket
    uint32_t* stamp   # per bucket: the query that tried it last
    uint32_t gen
    uint8_t widths    # bit w-1 set when some key has width w (1 to 4)
    uint8_t* pairs    # 65,536 bits: which two bytes start a key of width 2 to 4
    int32_t* single   # per byte: the bucket of the one-byte key, or -1


cdef struct Matcher:  # 64 bytes (the pointers, then the 4-byte fields: no padding inside);
    # a selection's matcher is one block, this struct then its arrays (matcher_block)
    Entry* entries    # linear: every rule; indexed: the nodes' other rules, then "always"
    Node* nodes
    # node k's other rules: entries[specials[k] : specials[k + 1]] (nnodes + 1 of them, the
    # last = always); NULL when no node has any (most matchers: only plain prefixes)
    uint32_t* specials
    NodeLit* node_lits  # per node, where some node's list is long enough for an index; or NULL
    LitIndex* lits
    uint32_t nentries
    uint32_t nnodes
    uint32_t always   # indexed: entries[always:] could match anywhere
    int32_t lit       # a LitIndex over entries[always:], or LIT_NONE, LIT_LATER, LIT_WANTED
    uint32_t nlits
    uint8_t scans     # queries that scanned the "always" list while it waits for its index
    uint8_t indexed   # 0: entries are one best-first list (a small group)
    uint8_t narrow    # indexed: the nodes are Node8 (nodes_narrow), else Node


cdef struct PrefixRef:
    uint64_t head     # the first eight bytes, big-endian (zero-padded): compared first
    uint64_t next8    # the next eight, so (zero for a prefix of eight bytes or fewer)
    uint32_t off
    uint32_t len
    uint8_t flags
    uint8_t pad
    uint32_t entry    # index into the entries being built, or 0xFFFFFFFFu for a plain rule
    uint32_t plain    # plain rule: its directive index (flags has F_ALLOW)


cdef struct RefFiling:
    # order_refs' state, passed along file_refs: the refs, their numbers in the order being
    # made and the eight bytes each is filed by (both twice: filed from one to the other),
    # and the bytes the refs point at
    PrefixRef* refs
    uint32_t* idx
    uint32_t* tmp_idx
    uint64_t* keys
    uint64_t* tmp_keys
    const unsigned char* text
    const unsigned char* pats


cdef struct RawRule:
    uint32_t vstart
    uint32_t index    # directive index
    uint32_t vlen
    uint32_t rid      # the rule's number in the file (Doc.pat_memo)
    uint8_t allow


cdef struct Pats:
    unsigned char* data  # the normalised bodies of a file's non-plain patterns
    Py_ssize_t n
    Py_ssize_t cap


cdef enum:
    MEMO_NONE = 0xFFFFFFFF  # pat_memo: the rule is not read yet
    MEMO_PAIR = 0x80000000  # pat_memo: its entry has a companion (the next pool entry)


cdef struct Token:
    uint32_t off      # into Doc.tokbuf (lower-cased)
    uint32_t len
    uint32_t sel      # the selection (compiled matcher) this token picks


cdef enum:
    MEMO = 4
    DIRS_SMALL = 768   # Doc._build: a file of up to 256 directives scanned into the stack
    AGENT_SMALL = 128  # a user agent up to this long is lower-cased on the stack (Doc._select)
    RULE_ALLOW = 0x80000000  # rule_words: the allow bit beside a value length (< MAX_LINE)
    RULE_LEN = 0x7FFFFFFF
    BUDGET_MIN = 1 << 16     # the entries and nodes a file's compiled matchers may hold: this
    BUDGET_PER_RULE = 4      # plus this many per rule of the file (see Doc._compile)



cdef struct Fact:  # the facts of one deciding key (batch.pxi): a Decisions entry
    int64_t key
    int64_t line       # Decisions.line: 0 where no line decided
    int64_t rule       # the deciding rule's directive index, or -1: no rule decided
    Py_ssize_t index   # in one call: the rule's index in Decisions.rules (-1: none)
    uint8_t allowed
    uint8_t reason     # an index into robotrules._model.REASONS


cdef struct SlotMap:  # open addressing, linear probing: int64 key -> Py_ssize_t (batch.pxi)
    int64_t* keys
    Py_ssize_t* vals   # -1: an empty slot
    Py_ssize_t mask    # slots - 1 (a power of two)
    int shift          # 64 - log2(slots): the hash's top bits pick the slot
    Py_ssize_t used
    bint heap          # the buffers are the table's (else the caller's, on its stack)


# -- functions, by the part that defines them ------------------------------------------------

# tables.pxi
cdef int ready() except -1

# memory.pxi
cdef int vec_reserve(U32Vec* v, Py_ssize_t extra) except -1
cdef int vec_init(U32Vec* v, Py_ssize_t cap) except -1
cdef void* xmalloc(Py_ssize_t size) except NULL
cdef int map_init(HashMap* h, Py_ssize_t items) except -1
cdef int map_count(HashMap* h, uint64_t key) except -1
cdef void map_free(HashMap* h) noexcept
cdef int add_entry(U32Vec* v, const Entry* e) except -1

# tokenize.pxi
cdef bint maybe_directive(const unsigned char* p, Py_ssize_t n, bint lenient) noexcept
cdef int classify(const unsigned char* p, Py_ssize_t n, bint lenient, bint* read_leniently
                  ) except -1
cdef int careful_line(const unsigned char* p, Py_ssize_t n, uint32_t lineno, uint32_t start,
                      int d, U32Vec* out) except -1
cdef int scan(const unsigned char* t, Py_ssize_t size, int d, U32Vec* out, U32Vec* odd
              ) except -1

# patterns.pxi
cdef unsigned char* pats_reserve(Pats* pats, Py_ssize_t size) except NULL
cdef void pats_fit(Pats* pats) noexcept
cdef uint32_t pats_add(Pats* pats, bytes body) except? 0xFFFFFFFFu
cdef bint fast_entry(Entry* e, const unsigned char* raw, Py_ssize_t n, int d, bint allow,
                     uint32_t index, Pats* pats, uint32_t raw_off) except -1
cdef tuple pattern_of(const unsigned char* raw, Py_ssize_t n, int d, bint allow)
cdef int fill_entry(Entry* e, tuple form, uint32_t index, Pats* pats) except -1
cdef int pattern_entries(const RawRule* rule, const unsigned char* text, int d, Pats* pats,
                         uint32_t* memo, U32Vec* pool) except -1

# build.pxi
cdef void sort_entries(Entry* a, Py_ssize_t n) noexcept nogil
cdef void sort_small(Entry* es, uint32_t n) noexcept nogil
cdef void sort_refs(PrefixRef* a, Py_ssize_t n, const unsigned char* text,
                    const unsigned char* pats) noexcept nogil
cdef int order_refs(PrefixRef* refs, Py_ssize_t n, const unsigned char* text,
                    const unsigned char* pats) except -1
cdef void insert_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
cdef void merge_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
cdef void file_buckets(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth,
                       int level, int shift, const uint32_t* ends) noexcept nogil
cdef void file_wide(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth, int level,
                    int shift) noexcept nogil
cdef void file_refs(RefFiling* f, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t depth, bint keyed,
                    int level) noexcept nogil
cdef int lit_build(LitIndex* li, Entry* es, uint32_t first, uint32_t count,
                   const unsigned char* text, const unsigned char* pats) except -1
cdef uint32_t dedupe_others(Entry* es, uint32_t n, const unsigned char* text,
                            const unsigned char* pats) except? 0xFFFFFFFFu
cdef uint32_t prefix_refs(PrefixRef* refs, const Entry* plains, uint32_t nplain,
                          const Entry* es, uint32_t nother, const unsigned char* text,
                          const unsigned char* pats) noexcept nogil
cdef uint32_t make_nodes(Node* nodes, const PrefixRef* refs, uint32_t nref,
                         const unsigned char* text, const unsigned char* pats) noexcept nogil
cdef void link_parents(Matcher* m, const unsigned char* text, const unsigned char* pats
                       ) noexcept nogil
cdef int mark_long_lists(Matcher* m) except -1
cdef int compile_rules(Matcher* m, const RawRule* rules, uint32_t count,
                       const unsigned char* text, int d, Pats* pats, uint32_t** memo_at,
                       uint32_t nmemo, U32Vec* pool) except -1
cdef int32_t _add_lit(Matcher* m, uint32_t first, uint32_t count, const unsigned char* text,
                      const unsigned char* pats) except -2
cdef int _place_specials(Matcher* m, Entry* es, uint32_t n, PrefixRef* refs, uint32_t nref,
                         const unsigned char* text, const unsigned char* pats) except -1

# match.pxi
cdef int64_t lit_best(LitIndex* li, const Entry* es, const unsigned char* path, Py_ssize_t n,
                      int64_t best, const unsigned char* text, const unsigned char* pats
                      ) noexcept nogil
cdef int64_t matcher_best(Matcher* m, const unsigned char* path, Py_ssize_t n,
                          const unsigned char* text, const unsigned char* pats) noexcept nogil
cdef int index_wanted(Matcher* m, const unsigned char* text, const unsigned char* pats
                      ) except -1
cdef Matcher* matcher_block(Matcher* m) noexcept
cdef void matcher_block_free(Matcher* m) noexcept
cdef bint nodes_narrow(const Matcher* m) noexcept
cdef void matcher_free(Matcher* m) noexcept

# urls.pxi
cdef Py_ssize_t normal_path(const unsigned char* p, Py_ssize_t n, unsigned char* out
                            ) noexcept nogil

# doc.pxi
cdef str exact_str(object value, str name)
cdef int sort_tokens(uint32_t* idx, uint32_t n, const unsigned char* buf, const Token* tokens
                     ) except -1
cdef Py_ssize_t value_bytes(U32Vec* uas) noexcept

# batch.pxi
cdef int slots_init(SlotMap* t, int64_t* keys, Py_ssize_t* vals, Py_ssize_t cap) noexcept
cdef void slots_free(SlotMap* t) noexcept
cdef int slots_grow(SlotMap* t) except -1
cdef Py_ssize_t slots_find_or_add(SlotMap* t, int64_t key, Py_ssize_t value) except -2
cdef int cmp_fact_key(const void* a, const void* b) noexcept nogil

# facts.pxi
cdef object path_text(str url, const unsigned char* u, Py_ssize_t n, const unsigned char* p,
                   Py_ssize_t plen)
