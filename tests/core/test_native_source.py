"""The kernel's source (``_native.pyx`` and ``_kernel/*.pxi``) keeps every function short.

Issue 37's review of the kernel: "12 Cython functions pass 60 [lines]" — a function that long
mixes jobs a reader has to take apart. Every ``def``, ``cdef`` and ``cpdef`` function and
method of the kernel is at most 60 lines, docstring included, counted from its ``def`` line to
its last non-blank line.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "robotrules"
LIMIT = 60
_DEF = re.compile(r"^(\s*)(?:cdef|cpdef|def)\s+(?:inline\s+)?(?:[\w\[\]\*\s,]+?\s+)?\**(\w+)\s*\(")
_NOT_A_FUNCTION = re.compile(r"^\s*cdef\s+(class|enum|struct|extern|packed|union)\b")


def function_lengths(text: str) -> list[tuple[str, int, int]]:
    """``(name, first line, length)`` of each function in Cython source ``text``: from its
    ``def`` line to the last non-blank line before the next line indented as little as it."""
    lines = text.split("\n")
    defs = []
    for i, line in enumerate(lines):
        m = _DEF.match(line)
        if m and not _NOT_A_FUNCTION.match(line) and "=" not in line.split("(")[0]:
            defs.append((i, len(m.group(1)), m.group(2)))
    out = []
    for i, indent, name in defs:
        end = len(lines)
        for k in range(i + 1, len(lines)):
            line = lines[k]
            body = line.strip()
            if (body and not body.startswith("#") and not body.startswith(")")
                    and len(line) - len(line.lstrip()) <= indent):
                end = k
                break
        while end > i and not lines[end - 1].strip():
            end -= 1
        out.append((name, i + 1, end - i))
    return out


def test_every_kernel_function_is_at_most_60_lines() -> None:
    files = [SRC / "_native.pyx", *sorted((SRC / "_kernel").glob("*.pxi"))]
    assert len(files) > 5
    long = [f"{f.name}:{line} {name} ({n} lines)" for f in files
            for name, line, n in function_lengths(f.read_text(encoding="utf-8")) if n > LIMIT]
    assert not long, f"over {LIMIT} lines: {long}"


def test_the_count_finds_a_long_function_and_its_end() -> None:
    # the check itself, on a function it writes: 61 lines is one too many, and a function
    # ends at the next line indented as little as its def
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    text = f"cdef int f(int a) except -1:\n{body}\n\n\ncdef class C:\n    pass\n"
    assert function_lengths(text) == [("f", 1, 61)]
    assert function_lengths("def g():\n    return 1\n") == [("g", 1, 2)]
