"""The native drivers: nzrsky's C++ fork of Google's parser and robotrules' kernel, each called
the way a native program would call it, built by the benchmark itself into a build directory.

- ``native/driver.c``, the C driver: links the ``librobots.so`` the ``fast-robotstxt`` package
  installs (found at run time from the package's location, never imported) and calls its C
  API (``robots_allowed_by_robots``) in a C loop; it also times the memchr line scan
  (``native/line_scan.h``). Compiled with the system C compiler (``$CC``, else ``cc``) and
  ``-O2``.
- ``native/rr_driver.pyx``, robotrules' Cython driver: cimports the kernel's declarations
  (``src/robotrules/_native.pxd`` of the robotrules it measures) and makes and asks the
  kernel's parsed file (``robotrules._native.Doc``) in a C loop, beside the same line scan.
  Cythonized and compiled with ``-O2`` as an extension module of this interpreter.

Both read the same inputs: :func:`write_cases` writes the bodies and their queries to a file
the C driver reads, and the Cython driver gets the same lists. Each times whole passes over
the files in CPU seconds (``clock_gettime(CLOCK_PROCESS_CPUTIME_ID)``) after an untimed pass.
:func:`build` says why a driver is missing (no compiler, no fast-robotstxt, no Cython) instead
of failing.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from bench_libs import Query

NATIVE_DIR = Path(__file__).resolve().parent / "native"
NZRSKY_LIB = "librobots.so"
FLAGS = ("-O2",)
Case = tuple[bytes, Sequence[Query]]


class BuildError(RuntimeError):
    """A driver could not be built; the message says why."""


@dataclass(frozen=True)
class Drivers:
    """The drivers built, and why any is missing (one sentence each)."""

    c: Path | None  # the C driver program
    rr: ModuleType | None  # robotrules' Cython driver
    missing: tuple[str, ...]


def compiler() -> str | None:
    """The system C compiler: ``$CC`` (its first word), else ``cc``, ``gcc`` or ``clang`` on
    PATH; None when there is none."""
    names = [os.environ["CC"].split()[0]] if os.environ.get("CC") else ["cc", "gcc", "clang"]
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def nzrsky_dir() -> Path | None:
    """The directory of the installed fast-robotstxt package (module ``robotstxt``) when it
    holds ``librobots.so``; found without importing it."""
    spec = importlib.util.find_spec("robotstxt")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if (Path(location) / NZRSKY_LIB).is_file():
            return Path(location)
    return None


def build_c(build: Path) -> Path:
    """Compile native/driver.c against the installed fast-robotstxt into ``build``."""
    cc = compiler()
    if cc is None:
        raise BuildError("no C compiler (cc, gcc, clang or $CC) on PATH")
    lib = nzrsky_dir()
    if lib is None:
        raise BuildError("fast-robotstxt (robotstxt/librobots.so) is not installed")
    build.mkdir(parents=True, exist_ok=True)
    exe = build / "driver"
    cmd = [cc, *FLAGS, "-std=c11", "-I", str(NATIVE_DIR), "-o", str(exe),
           str(NATIVE_DIR / "driver.c"), "-L", str(lib), f"-l:{NZRSKY_LIB}",
           f"-Wl,-rpath,{lib}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BuildError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[:500]}")
    return exe


def build_rr(build: Path, robotrules: ModuleType) -> ModuleType:
    """Cythonize and compile native/rr_driver.pyx into ``build`` against the declarations of
    ``robotrules`` (its ``_native.pxd``), then import it."""
    if compiler() is None:
        raise BuildError("no C compiler (cc, gcc, clang or $CC) on PATH")
    if not getattr(robotrules, "NATIVE", False):
        raise BuildError("the robotrules measured has no native kernel")
    try:
        from Cython.Build import cythonize
        from setuptools import Distribution, Extension
    except ImportError as exc:
        raise BuildError(f"Cython and setuptools are needed to build it ({exc})") from exc
    if robotrules.__file__ is None:
        raise BuildError("the robotrules measured has no source directory")
    package = Path(robotrules.__file__).resolve().parent
    if not (package / "_native.pxd").is_file():
        raise BuildError(f"{package} has no _native.pxd")
    build.mkdir(parents=True, exist_ok=True)
    ext = Extension("rr_driver", [str(NATIVE_DIR / "rr_driver.pyx")],
                    include_dirs=[str(NATIVE_DIR)], extra_compile_args=list(FLAGS))
    try:
        exts = cythonize(  # type: ignore[no-untyped-call]
            [ext], include_path=[str(package.parent)], build_dir=str(build / "c"), quiet=True,
            language_level=3, force=True)
        dist = Distribution({"ext_modules": exts, "script_name": "bench_native"})
        cmd = dist.get_command_obj("build_ext")
        cmd.build_lib = str(build)
        cmd.build_temp = str(build / "tmp")
        cmd.ensure_finalized()
        cmd.run()
        built = Path(cmd.get_ext_fullpath("rr_driver"))
    except Exception as exc:  # Cython's and distutils' errors share no base class
        raise BuildError(f"building rr_driver failed: {exc}") from exc
    spec = importlib.util.spec_from_file_location("rr_driver", built)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot import {built}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(build_dir: Path, robotrules: ModuleType) -> Drivers:
    """Both drivers, each built or missing with its reason."""
    missing = []
    c: Path | None = None
    rr: ModuleType | None = None
    try:
        c = build_c(build_dir / "c-driver")
    except BuildError as exc:
        missing.append(f"the C driver (nzrsky, memchr): {exc}")
    try:
        rr = build_rr(build_dir / "rr-driver", robotrules)
    except BuildError as exc:
        missing.append(f"robotrules' Cython driver: {exc}")
    return Drivers(c, rr, tuple(missing))


def write_cases(path: Path, cases: Sequence[Case]) -> None:
    """The C driver's input: a line ``robotrules-cases 1 <files>``, then per file a line
    ``<body bytes> <queries>``, the body and a newline, then per query a line ``<agent bytes>
    <url bytes>``, the agent and URL (UTF-8) and a newline. Lengths make it binary-safe."""
    with path.open("wb") as out:
        out.write(b"robotrules-cases 1 %d\n" % len(cases))
        for body, queries in cases:
            out.write(b"%d %d\n" % (len(body), len(queries)))
            out.write(body + b"\n")
            for agent, url in queries:
                a, u = agent.encode(), url.encode()
                out.write(b"%d %d\n" % (len(a), len(u)) + a + u + b"\n")


def run_c(exe: Path, mode: str, cases: Path, passes: int) -> list[float]:
    """CPU seconds of each of ``passes`` timed passes of the C driver (``first``, ``cold`` or
    ``scan``), after its untimed pass."""
    proc = subprocess.run([str(exe), mode, str(cases), str(passes)], capture_output=True,
                          text=True, check=True, timeout=600)
    return [float(line) for line in proc.stdout.split()]


def c_answers(exe: Path, cases: Path) -> list[bool]:
    """The C driver's verdict on every query, file by file."""
    proc = subprocess.run([str(exe), "answers", str(cases)], capture_output=True, text=True,
                          check=True, timeout=600)
    return [line == "1" for line in proc.stdout.split()]


def rr_inputs(cases: Sequence[Case]) -> tuple[list[bytes], list[list[Query]]]:
    """The Cython driver's arguments for ``cases``: the bodies, and each one's queries."""
    return [body for body, _ in cases], [list(qs) for _, qs in cases]


if __name__ == "__main__":  # pragma: no cover - a manual check of the builds
    import tempfile

    import robotrules as _rr

    with tempfile.TemporaryDirectory() as tmp:
        d = build(Path(tmp), _rr)
        print(d.c, d.rr, *d.missing, sep="\n", file=sys.stderr)
