"""Measurements taken in other processes: bounded children, import time and resident memory.

- :func:`run_limited` runs a function in a forked child that reports progress after each step
  (a parse, a query); a child silent for longer than the per-step limit is stopped, so a
  library that hangs on one query costs the run that limit, not the run.
- :func:`import_times` times ``import <library>`` in fresh interpreters.
- :func:`rss_of` measures, in a fresh interpreter per library, the resident set size (RSS)
  before and after parsing a corpus (every parsed object kept alive) and after its queries.
  tracemalloc only sees what Python's allocator hands out; RSS also sees what a C or Rust
  library allocates with malloc. The child is this file run as a script.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import multiprocessing
import multiprocessing.connection
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# -- bounded children -------------------------------------------------------------------------

Tick = Callable[..., None]  # tick(force=False)


def _child(conn: multiprocessing.connection.Connection, target: Callable[..., Any],
           args: Sequence[Any]) -> None:
    last = [time.perf_counter()]

    def tick(force: bool = False) -> None:
        # progress, at most every 20 ms unless forced (the parent's limit is per step, far
        # above that); force at the end of a phase with its own limit (the parse)
        now = time.perf_counter()
        if force or now - last[0] > 0.02:
            conn.send(("tick", None))
            last[0] = now

    try:
        payload = target(tick, *args)
    except Exception as exc:  # reported, not raised: the parent continues with the others
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    else:
        conn.send(("done", payload))
    conn.close()


def run_limited(target: Callable[..., Any], args: Sequence[Any], *, start_limit: float,
                step_limit: float) -> tuple[str, Any]:
    """``target(tick, *args)`` in a forked child: ``("ok", its result)``, ``("stopped", None)``
    when the child went ``start_limit`` seconds without reporting at first, or ``step_limit``
    seconds between two reports after that, or ``("error", message)``. The target calls
    ``tick()`` after each step it wants to be bounded (``tick(force=True)`` when the step
    must be reported at once, such as the end of the parse)."""
    ctx = multiprocessing.get_context("fork")  # the child inherits the libraries as loaded
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, target, args))
    proc.start()
    send.close()
    status: tuple[str, Any] = ("stopped", None)
    limit = start_limit
    try:
        while recv.poll(limit):
            try:
                kind, payload = recv.recv()
            except EOFError:  # the child died without a word (a crash)
                status = ("error", f"child exited with {proc.exitcode}")
                break
            if kind == "done":
                status = ("ok", payload)
                break
            if kind == "error":
                status = ("error", payload)
                break
            limit = step_limit
    finally:
        if status[0] != "ok":
            proc.terminate()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        recv.close()
    return status


# -- import time ----------------------------------------------------------------------------

_IMPORT_CODE = ("import time; t0 = time.perf_counter(); {stmt}; "
                "print(repr(time.perf_counter() - t0))")


def import_times(statements: Mapping[str, tuple[str, Mapping[str, str]]],
                 runs: int) -> dict[str, list[float]]:
    """Seconds of ``statement`` (``perf_counter`` around it) in ``runs`` fresh interpreters
    per library; the libraries take turns run by run. ``statements`` maps a name to the
    statement and extra environment variables."""
    out: dict[str, list[float]] = {name: [] for name in statements}
    # Bytecode caching on, in a private folder, as an installed package has it: a library
    # imported from a source tree (an editable install) would otherwise compile its modules
    # in every fresh interpreter where PYTHONDONTWRITEBYTECODE is set. One unmeasured run
    # per library fills the cache.
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    base["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "robotrules-bench-pyc")
    for warm in (True, *([False] * runs)):
        for name, (stmt, extra_env) in statements.items():
            env = {**base, **extra_env}
            proc = subprocess.run([sys.executable, "-c", _IMPORT_CODE.format(stmt=stmt)],
                                  capture_output=True, text=True, env=env, timeout=120,
                                  check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"{stmt!r} failed: {proc.stderr.strip()[-500:]}")
            if not warm:
                out[name].append(float(proc.stdout.strip().splitlines()[-1]))
    return out


def startup_modules() -> list[str]:
    """The modules a fresh interpreter has loaded before running any code (a ``sitecustomize``
    or ``.pth`` file can preload ``re`` or ``typing``, which then cost no library anything)."""
    code = "import sys; print(' '.join(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    return proc.stdout.split()


# -- resident memory ------------------------------------------------------------------------

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _malloc_trim() -> Callable[[], None]:
    """glibc's ``malloc_trim(0)`` (gives freed C heap back to the system), or nothing."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return lambda: None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int

    def run() -> None:
        trim(0)
    return run


def rss_bytes() -> int:
    """Resident set size now: ``/proc/self/statm``, else the peak from ``getrusage``."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * _PAGE
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def rss_of(lib: str, corpus: Path, files: int | None, queries: int, seed: int,
           timeout: float = 600, *, drop: bool = False) -> dict[str, Any]:
    """RSS figures of one library, measured in a fresh interpreter (this file as a script).
    ``drop``: each body is a fresh copy the caller lets go of once it is parsed (a crawler
    that caches parsed files, not bodies), else the caller keeps every body (loaded before
    the first reading)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "rss", lib, str(corpus),
           "all" if files is None else str(files), str(queries), str(seed),
           "drop" if drop else "keep"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"RSS child for {lib} failed: {proc.stderr.strip()[-800:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _rss_main(lib_name: str, corpus: str, files: str, queries: str, seed: str,
              mode: str) -> None:
    sys.path.insert(0, str(HERE))
    import bench_libs as L
    from bench_data import site_files

    libs: Sequence[L.Lib]
    if lib_name.startswith("robotrules"):
        import bench_builds

        label = lib_name.removesuffix("[google]").removesuffix(L.LEAN)
        module = bench_builds.load_one(label)
        libs = (*L.robotrules_libs(module, label), L.lean_lib(module, label))
    else:
        libs = L.OTHERS
    lib = next(x for x in libs if x.name == lib_name)
    assert lib.parse is not None
    assert lib.ask is not None
    parse, ask = lib.parse, lib.ask
    data = site_files(Path(corpus), None if files == "all" else int(files), int(queries),
                      int(seed))
    for f in data[:20]:  # the library's lazy imports and module-level caches, as in tracemalloc
        o = parse(f.body)
        for a, u in f.queries:
            ask(o, a, u)
    del o
    trim = _malloc_trim()

    def settle() -> int:
        gc.collect()
        trim()
        return rss_bytes()

    before = settle()
    if mode == "drop":  # a fresh copy of each body, gone once parsed unless the object keeps it
        kept = [parse(bytes(bytearray(f.body))) for f in data]
    else:
        kept = [parse(f.body) for f in data]
    after_parse = settle()
    for obj, f in zip(kept, data, strict=True):
        for a, u in f.queries:
            ask(obj, a, u)
    after_queries = settle()
    print(json.dumps({"library": lib_name, "files": len(data),
                      "input_bytes": sum(len(f.body) for f in data), "before": before,
                      "after_parse": after_parse, "after_queries": after_queries,
                      "objects": len(kept), "bodies": mode}))


def median_ms(times: Sequence[float]) -> float:
    return statistics.median(times) * 1000


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "rss":
        _rss_main(*sys.argv[2:])
    else:
        sys.exit("usage: bench_proc.py rss LIBRARY CORPUS FILES|all QUERIES SEED keep|drop")
