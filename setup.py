"""Build of the native kernels: ``src/robotrules/_native.pyx`` (Cython) compiled to C.

The ``.pyx`` only lists its parts (``src/robotrules/_kernel/*.pxi``, one job each), whose shared
declarations are in ``_native.pxd``; Cython includes them into the one C module and rebuilds it
when any of them changes. The sdist carries all three (``[tool.setuptools.package-data]``).

Released wheels carry the compiled kernel (built by cibuildwheel, see ``[tool.cibuildwheel]``
in ``pyproject.toml`` and ``.github/workflows/release.yml``). From the sdist or a checkout,
``pip install`` compiles it with the machine's C compiler (Cython comes in as a build
requirement). Where that fails (no compiler, no Python headers) the install goes on without
it and robotrules runs its pure-Python core, which gives the same answers (it is the reference
the native kernels are tested against) 10 to 20 times slower: the build says so in a framed
notice on stderr (``pip install -v`` shows it; pip hides a successful build's output), and
``python -c "import robotrules; print(robotrules.NATIVE)"`` tells afterwards.
Such a wheel is tagged ``py3-none-any`` (``TaggedWheel``): it holds no compiled module. pip
keeps a wheel it built from an sdist in its cache and installs it again, so once a compiler is
there, reinstall with ``pip install --no-cache-dir --force-reinstall`` (the notice says so).
``ROBOTRULES_REQUIRE_NATIVE=1`` makes that failure fail the install instead.
``ROBOTRULES_PURE=1`` at build time skips the compile; at run time it makes an installed build
use the pure core.

Build hygiene: the wheel carries the ``.so`` without debug symbols (``-g0`` and the linker's
strip flag; about 170 KB instead of 1.1 MB) and not the generated ``_native.c`` (excluded in
``pyproject.toml``); the C compiler's warnings that Cython's generated code raises by design
(signed/unsigned loop counters, values GCC cannot prove set) are switched off by name.
``ROBOTRULES_SANITIZE=1`` builds it with AddressSanitizer and UBSan instead (for a separate
build directory: ``.ci/run`` runs ``tests/core`` and ``tools/fuzz_native.py`` on it), and
fails rather than falling back.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

# Set when the native kernels were wanted but could not be built: the wheel is then pure
_SKIPPED: list[str] = []


class OptionalBuildExt(build_ext):
    """Compile the native kernels when possible; never fail the install for them."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler at all
            self._skip(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # the compiler or the headers failed
            self._skip(exc)

    def _skip(self, exc: BaseException) -> None:
        if os.environ.get("ROBOTRULES_REQUIRE_NATIVE") == "1":
            raise exc
        why = " ".join(str(exc).split())
        _SKIPPED.append(why)
        _notice("the native kernels were not built ("
                + (why if len(why) <= 160 else why[:157] + "...") + ").")


class TaggedWheel(bdist_wheel):
    """A wheel tagged for what it holds: ``py3-none-any`` when the kernels were not built.

    A pure build tagged for the interpreter and platform (``cp311-cp311-linux_x86_64``) would
    claim a compiled module it does not carry; tagged ``py3-none-any`` it says what it is, and
    ``Root-Is-Purelib`` agrees. The tag is read after the build has run, so it follows the
    build's outcome, not the extensions it was asked for."""

    def get_tag(self) -> tuple[str, str, str]:
        if _SKIPPED:
            self.root_is_pure = True
        return super().get_tag()


def _notice(why: str) -> None:
    """A framed notice that the install goes on with the pure-Python core, and what to do."""
    lines = [
        "robotrules: " + why,
        "The install goes on with the pure-Python core: same answers, 10 to 20 times slower.",
        "For the fast core install a C compiler and the Python headers (Debian/Ubuntu:",
        "apt install build-essential python3-dev), then reinstall without pip's wheel cache",
        "(pip install --no-cache-dir --force-reinstall ...: pip keeps the pure wheel built",
        "from an sdist and would install it again); or install a released wheel.",
        "ROBOTRULES_REQUIRE_NATIVE=1 makes this failure fail the install instead.",
    ]
    bar = "!" * 78
    print("\n".join((bar, *lines, bar)), file=sys.stderr)


# Warnings Cython's generated C raises by design, off by name (GCC and Clang): loop counters
# compared across signedness, and variables set on every path GCC's flow analysis cannot see.
_QUIET = ["-Wno-unknown-warning-option", "-Wno-sign-compare", "-Wno-maybe-uninitialized"]


def _flags() -> tuple[list[str], list[str]]:
    """Compile and link flags: optimised, no debug information, stripped."""
    if os.name == "nt":  # MSVC: /O2 is setuptools' default; no debug info without /Zi
        return [], []
    compile_args = ["-O3", "-g0", *_QUIET]
    link_args = ["-Wl,-S"] if sys.platform == "darwin" else ["-s"]
    return compile_args, link_args


def _extensions() -> list[Extension]:
    if os.environ.get("ROBOTRULES_PURE") == "1":
        return []
    sanitize = os.environ.get("ROBOTRULES_SANITIZE") == "1"
    if sanitize:  # a sanitizer build exists only to test the kernel: never fall back
        os.environ["ROBOTRULES_REQUIRE_NATIVE"] = "1"
    try:
        from Cython.Build import cythonize
    except ImportError:
        if os.environ.get("ROBOTRULES_REQUIRE_NATIVE") == "1":
            # pip brings Cython in as a build requirement; `python setup.py ...` run directly
            # (the sanitizer stage of .ci/run) needs it installed: the `test` extra has it
            sys.exit("robotrules: the native kernels are required (ROBOTRULES_REQUIRE_NATIVE=1"
                     " or ROBOTRULES_SANITIZE=1) but Cython is not installed: "
                     "pip install 'Cython>=3.0' (it is in the test extra)")
        _notice("Cython was not found, so the native kernels were not built.")
        return []
    if sanitize:
        flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                 "-fno-omit-frame-pointer", "-O1", "-g"]
        ext = Extension("robotrules._native", ["src/robotrules/_native.pyx"],
                        extra_compile_args=flags, extra_link_args=flags[:2])
        return list(cythonize([ext], language_level=3, quiet=True))
    compile_args, link_args = _flags()
    ext = Extension("robotrules._native", ["src/robotrules/_native.pyx"],
                    extra_compile_args=compile_args, extra_link_args=link_args)
    return list(cythonize([ext], language_level=3, quiet=True))


setup(ext_modules=_extensions(),
      cmdclass={"build_ext": OptionalBuildExt, "bdist_wheel": TaggedWheel})
