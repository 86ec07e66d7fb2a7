"""Build of the native kernels: ``src/robotrules/_native.pyx`` (Cython) compiled to C.

``pip install robotrules`` / ``pip install -e .`` compile it with the machine's C compiler
(Cython comes in as a build requirement). Where that fails (no compiler, no Python headers)
the install goes on without it and robotrules runs its pure-Python core, which gives the same
answers (it is the reference the native kernels are tested against). ``ROBOTRULES_PURE=1``
at build time skips the compile; at run time it makes an installed build use the pure core.
``ROBOTRULES_SANITIZE=1`` builds it with AddressSanitizer and UBSan instead (for a separate
build directory: ``.ci/run`` runs ``tests/core`` and ``tools/fuzz_native.py`` on it), and
fails rather than falling back.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


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
        print(f"robotrules: native kernels not built ({exc}); the pure-Python core is used",
              file=sys.stderr)


def _extensions() -> list[Extension]:
    if os.environ.get("ROBOTRULES_PURE") == "1":
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("robotrules: Cython not found; the pure-Python core is used", file=sys.stderr)
        return []
    # -- sanitizer build switch (issue 20): begin
    if os.environ.get("ROBOTRULES_SANITIZE") == "1":
        os.environ["ROBOTRULES_REQUIRE_NATIVE"] = "1"
        flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                 "-fno-omit-frame-pointer", "-O1", "-g"]
        ext = Extension("robotrules._native", ["src/robotrules/_native.pyx"],
                        extra_compile_args=flags, extra_link_args=flags[:2])
        return list(cythonize([ext], language_level=3, quiet=True))
    # -- sanitizer build switch: end
    ext = Extension("robotrules._native", ["src/robotrules/_native.pyx"],
                    extra_compile_args=["-O3"] if os.name != "nt" else [])
    return list(cythonize([ext], language_level=3, quiet=True))


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
