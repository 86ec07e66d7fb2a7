"""Cross-cutting suites: one property held over many modules at once (the same answer at every
door: library, CLI, web tester, drop-ins). The other cross-cutting suites (the differential
tests against Google's matcher, the native kernel against the pure core, totality, worst
shapes) live in tests/core, where the pure-core CI run (``ROBOTRULES_PURE=1 pytest
tests/core``) and the wheel check reach them."""
