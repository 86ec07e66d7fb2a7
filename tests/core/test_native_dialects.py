"""A dialect is one DialectSpec, for the kernel too (robotrules._tables.dialect_flags, the
kernel's per-dialect tables in ``_kernel/tables.pxi``).

Issue 37's reproduction: "The kernel branches on dialect codes (``self.d == 0``, ``== 1``), its
arrays are sized for exactly three dialects, ``_tables.py`` asserts ``len(CODES) == 3``; adding
a fourth spec makes ``import robotrules`` fail on a native build (tried)". Here a fourth spec
is added in a fresh interpreter, as the module that owns the specs is loaded (before anything
reads them), and both peers answer in it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import robotrules
from robotrules import _tables

# A fourth spec: RFC 9309's reading with /robots.txt no longer always allowed (the one field
# that differs is the one the kernel must read off the spec, not off a dialect code).
_FOURTH = textwrap.dedent("""
    import copy, importlib.abc, importlib.machinery, json, sys

    class AddSpec(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "robotrules._dialects":
                return None
            sys.meta_path.remove(self)
            found = importlib.machinery.PathFinder.find_spec(name, path)
            run = found.loader.exec_module

            def exec_module(module):
                run(module)
                strict = copy.copy(module.SPECS["rfc9309"])
                object.__setattr__(strict, "name", "rfc9309-strict")
                object.__setattr__(strict, "robots_txt_allowed", False)
                module.SPECS["rfc9309-strict"] = strict
                module.NAMES = tuple(module.SPECS)

            found.loader.exec_module = exec_module
            return found

    sys.meta_path.insert(0, AddSpec())
    import robotrules
    from robotrules import _robots, _tables

    body = b"User-agent: *\\nDisallow: /\\nAllow: /ok$\\n"
    out = {"codes": list(_tables.CODES), "native": robotrules.NATIVE}
    for dialect in ("rfc9309", "rfc9309-strict"):
        fast = robotrules.parse(body, dialect)
        slow = _robots.reference(body, dialect)
        out[dialect] = {
            "peer": type(fast).__name__,
            "native": [fast.is_allowed(u) for u in ("/robots.txt", "/ok", "/ok/x", "/%6Fk")],
            "pure": [slow.is_allowed(u) for u in ("/robots.txt", "/ok", "/ok/x", "/%6Fk")],
        }
    print(json.dumps(out))
""")


def test_a_fourth_spec_is_answered_by_both_peers() -> None:
    """RFC 9309 2.2.2: "/robots.txt" is always allowed in rfc9309; the fourth spec says it is
    not, and otherwise reads as rfc9309 (the escape %6F is 'o' once normalised)."""
    import json

    run = subprocess.run([sys.executable, "-c", _FOURTH], capture_output=True, text=True,
                         timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["codes"][-1] == "rfc9309-strict"
    assert len(out["codes"]) == 4
    assert out["rfc9309"]["pure"] == [True, True, False, True]
    assert out["rfc9309-strict"]["pure"] == [False, True, False, True]
    for dialect in ("rfc9309", "rfc9309-strict"):
        assert out[dialect]["native"] == out[dialect]["pure"], dialect
        if out["native"]:  # the native peer reads the fourth dialect too
            assert out[dialect]["peer"] == "NativeRobotsTxt", dialect


@pytest.mark.skipif(not robotrules.NATIVE, reason="native kernels turned off")
def test_the_kernel_reads_each_dialects_flags_off_its_spec() -> None:
    """The flags the kernel answers by, per dialect, from the spec's own fields and path
    reading (robotrules._dialects: rfc9309 allows /robots.txt and normalises escapes; Google's
    matcher reads the path as a C string, robots.cc)."""
    assert _tables.dialect_flags("rfc9309") == (True, True, False)
    assert _tables.dialect_flags("google") == (False, False, True)
    rules = robotrules.parse(b"User-agent: *\nDisallow: /a\n", "google")
    assert rules.is_allowed("/b\x00/a")  # the path is "/b"
    assert not robotrules.parse(b"User-agent: *\nDisallow: /a\n").is_allowed("/%61")
