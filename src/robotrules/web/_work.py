"""The tester's heavy work (check, lint, diff, AI usage preferences, the registry overview),
its cost estimates, and the processes that run it.

Theory of operation
-------------------
Every ``/api/lint``, ``/api/diff`` and ``POST /api/agents``, and every ``/api/check`` and
``/api/usage`` that is not cheap (below), runs in one of a few worker processes
(:class:`WorkPool`), never on the event loop and never in a thread that cannot be stopped:

- **Slots.** At most ``size`` jobs run at once (one process each). A request waits up to
  ``wait`` seconds for a slot, then gets :class:`Busy` (the app answers 429 with
  ``Retry-After``). ``GET /`` and the static files never touch the pool.
- **Deadline.** A job that has not answered within ``deadline`` seconds has its process
  killed (:class:`TooSlow`, 503); the slot is free at once and a fresh process is started on
  the next demand. Lint's shadowed-rule analysis is quadratic in a group's rules, and a
  wildcard-heavy file is costly per query, so the kill is the bound that always holds.
- **Disconnect.** While a job runs, the request's ``disconnected()`` is polled; when the
  client has gone the process is killed (:class:`Gone`) instead of finishing unread work.
- **Memory.** Each worker limits its own address space (``RLIMIT_AS``); a job past it fails
  with ``MemoryError``, answered 422.
- **Priority.** Workers run at ``nice`` 10, so on a busy machine the server process (the
  event loop answering ``GET /`` and refusing work) is scheduled first.

Processes come from the ``forkserver`` context with this module preloaded, so a replacement
after a kill costs a fork (milliseconds), not an interpreter start.

**Cheap work skips the queue**. With the native core, a check or usage table whose
estimate is at most :data:`CHEAP_STEPS` on a file of at most :data:`CHEAP_BYTES` is answered in
the server process, in the thread that decoded its body (:func:`is_cheap`): the core answers such
a request in a few milliseconds (a 5.5 KB file in three dialects with 30 queries: about 3 ms),
less than the round trip to a worker, and the estimate is an upper bound, so no request the
pool would have to kill is run there. Everything else (lint, diff and the registry overview,
which have no estimate, and the costly checks) still queues for a worker and is refused with
429 when every slot stays busy.

Before a check is queued, :func:`check_cost` estimates its matcher work and the app refuses
(422) what is past :data:`WORK_BUDGET`. The model is an upper bound built from the matcher's
documented worst case (:mod:`robotrules._match`: ``O(len(path) * len(pattern))`` per rule
scanned, plain prefixes found through an index): a query costs about ``CHAR_STEPS`` per path
character (normalising and walking the path) plus, for each rule with a ``*`` (counted as lines
holding a ``*``, which over-counts comments), ``RULE_STEPS`` plus one step per path character.
The 1994 dialect has no wildcards, so only the path term applies there. Calibrated on the
development machine (one step is about 2 ns there): 38,000 ``Disallow: /*ba`` rules against
an 8 KiB path take 0.64 s per RFC 9309 query, which the model puts at 3.2e8 steps.

:func:`usage_cost` applies the same model to ``/api/usage`` (one dialect; each Content-Usage
rule is a pattern match like a wildcard rule; plus ``LINE_STEPS`` per line of the file per
query, for the pass over the file's records (Content-Signal, LLM-Policy and License) that each
query makes: about 120 ns per line per query at worst on the corpus, so a 16,000-line file
allows about 2,600 usage queries per request). The registry
overview (:func:`registry`) is one parse plus one judgement per distinct group the registry's
crawlers land in (``agents.assess_many``), whose worst case is lint's quadratic analysis of one
group: like lint, it is bounded by the deadline and the memory limit rather than an estimate.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any, get_args

import robotrules
from robotrules import Dialect, Finding, RobotrulesError, parse
from robotrules._dialects import NAMES, spec
from robotrules._token import product_token
from robotrules.agents import PURPOSES, assess_many, known_agents, purposes_of
from robotrules.aipref import Scope, summarize_signals, usage_keys
from robotrules.lint import lint

__all__ = ["CHAR_STEPS", "CHEAP_BYTES", "CHEAP_STEPS", "DIALECTS", "LINE_STEPS", "RULE_STEPS",
           "SCOPES", "WORK_BUDGET", "Busy",
           "Gone", "JobFailed", "TooSlow", "WorkPool", "check", "check_cost", "diff",
           "is_cheap", "lint_findings", "registry", "run_job", "usage_cost", "usage_table"]

DIALECTS: tuple[Dialect, ...] = NAMES
SCOPES: tuple[Scope, ...] = get_args(Scope)
CHAR_STEPS = 500  # one path character: normalisation and the index walk (~1 µs measured)
RULE_STEPS = 150  # one wildcard rule visited, before its scan of the path (~0.3 µs)
# One line of the file, per usage query: RobotsTxt.usage walks the file's records (derived once
# per parsed file) and the applying group on every query. Measured: 18 to 120 ns per line per
# query on corpus files of 7,000 to 16,000 lines (fxnetworks.com is the slow end).
LINE_STEPS = 60
WORK_BUDGET = 2_500_000_000  # steps per request: about 5 s on the development machine
WORKER_MEMORY = 1024 * 1024 * 1024  # address space per worker process
# Answered in the server process, without a worker: at most about 20 ms by the model (an upper
# bound; 3 ms measured for the load test's request), on a file whose parse takes a few ms.
CHEAP_STEPS = 10_000_000
CHEAP_BYTES = 64 * 1024

# -- the work (plain functions, run in a worker process) --------------------------------------


def check(
    body: str, urls: Sequence[str], agents: Sequence[str], dialect: Dialect
) -> dict[str, Any]:
    """Every agent x URL verdict in ``dialect``, with how the other dialects answer.

    The chosen dialect's verdicts are explained (the page shows the sentence and the group);
    the other dialects give only verdict and line, through the batch API: one
    ``decide_many`` per dialect and agent, whose entries equal ``explain``'s fields."""
    parsed = {d: parse(body, dialect=d) for d in DIALECTS}
    urls = list(urls)
    others = {(d, agent): parsed[d].decide_many(urls, user_agent=agent)
              for d in DIALECTS if d != dialect for agent in agents}
    results: list[dict[str, Any]] = []
    for i, url in enumerate(urls):
        for agent in agents:
            verdict = parsed[dialect].explain(url, user_agent=agent)
            answers: dict[str, dict[str, Any]] = {}
            for d in DIALECTS:
                if d == dialect:
                    answers[d] = {"allowed": verdict.allowed, "line": verdict.line}
                else:
                    many = others[d, agent]
                    answers[d] = {"allowed": many.allowed[i] == 1, "line": many.line[i] or None}
            results.append(
                {
                    "agent": agent,
                    "url": url,
                    "verdict": verdict.to_dict(),
                    "dialects": answers,
                    "dialects_disagree": len({a["allowed"] for a in answers.values()}) > 1,
                }
            )
    # The product token each agent is matched by (RFC 9309 2.2.1): the page labels a whole
    # User-Agent header by it.
    tokens = {agent: product_token(agent) for agent in agents}
    return {"dialect": dialect, "urls": urls, "agents": list(agents), "tokens": tokens,
            "results": results}


def _usage_columns(vocabulary: str) -> list[str]:
    """The table's columns: the vocabulary's usage keys, in its order (``aipref.usage_keys``:
    its labels, vocab-08's ``ai-use`` among them, then Content-Signal's)."""

    return list(usage_keys(vocabulary))


def usage_table(
    body: str, urls: Sequence[str], agents: Sequence[str], dialect: Dialect, scope: Scope,
    vocabulary: str = "vocab-07", policy_tokens: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The AI usage preferences (``RobotsTxt.usage``) of every agent x URL, in ``dialect``,
    with Content-Signal lines read per group or file-wide (``scope``), under the AIPREF
    ``vocabulary`` version; ``signals`` says which usage signals the file carries at all
    (``robotrules.aipref.summarize_signals``); ``policy_tokens`` as ``RobotsTxt.usage``."""

    rules = parse(body, dialect=dialect)
    results: list[dict[str, Any]] = []
    for agent in agents:
        for url in urls:
            u = rules.usage(url, user_agent=agent, content_signal_scope=scope,
                            vocabulary=vocabulary, policy_tokens=policy_tokens)
            verdict = u.verdict
            results.append({
                "agent": agent,
                "url": url,
                **u.to_dict(),
                "crawl_line": verdict.line if verdict is not None else None,
            })
    return {"dialect": dialect, "scope": scope, "vocabulary": vocabulary, "urls": list(urls),
            "agents": list(agents), "columns": _usage_columns(vocabulary), "results": results,
            "policy_tokens": dict(policy_tokens or {}),
            "signals": summarize_signals(rules, vocabulary=vocabulary,
                                         policy_tokens=policy_tokens).to_dict()}


def registry(body: str, dialect: Dialect) -> dict[str, Any]:
    """Every crawler of the registry, open / partly / blocked by the file, grouped by purpose
    (a crawler with several purposes is listed under each), with counts per purpose."""
    rules = parse(body, dialect=dialect)
    agents = known_agents()
    judged = {a.agent.token: a for a in assess_many(rules, agents)}
    purposes: list[dict[str, Any]] = []
    order = list(PURPOSES) + sorted({p for a in agents for p in purposes_of(a)} - set(PURPOSES))
    for purpose in order:
        members = [a for a in agents if purpose in purposes_of(a)]
        if not members:
            continue
        counts = {"allowed": 0, "partial": 0, "blocked": 0}
        rows = []
        for agent in members:
            access = judged[agent.token]
            counts[access.access] += 1
            rows.append({**access.to_dict(), "name": agent.name})
        purposes.append({"purpose": purpose, "counts": counts, "agents": rows})
    totals = {"allowed": 0, "partial": 0, "blocked": 0}
    for access in judged.values():
        totals[access.access] += 1
    return {"dialect": dialect, "total": len(agents), "counts": totals, "purposes": purposes}


def lint_findings(body: str, dialect: Dialect) -> dict[str, Any]:
    findings: list[Finding] = lint(body, dialect=dialect)  # sorted by line
    return {"dialect": dialect, "findings": [f.to_dict() for f in findings]}


def diff(before: str, after: str) -> dict[str, Any]:
    """A unified diff of ``before`` (the fetched file) and ``after`` (the edited one)."""
    import difflib

    old, new = before.splitlines(), after.splitlines()
    lines = list(difflib.unified_diff(old, new, "fetched", "edited", n=3, lineterm=""))
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return {"diff": "\n".join(lines), "added": added, "removed": removed,
            "identical": old == new}


def check_cost(body: str, urls: Sequence[str], agents: Sequence[str]) -> int:
    """The estimated matcher work of :func:`check`, in steps (see the module docstring)."""
    wild = sum(1 for line in body.splitlines() if "*" in line)
    chars = sum(len(url) for url in urls)
    per_agent = len(DIALECTS) * CHAR_STEPS * chars  # every dialect walks every path
    # only the dialects whose patterns have wildcards scan their '*' rules (not 1994's)
    wildcard_dialects = sum(1 for d in DIALECTS if spec(d).wildcards)
    per_agent += wildcard_dialects * wild * (RULE_STEPS * len(urls) + chars)
    return len(agents) * per_agent


def usage_cost(body: str, urls: Sequence[str], agents: Sequence[str]) -> int:
    """The estimated work of :func:`usage_table`, in steps (see the module docstring).

    One usage query is one crawl query in one dialect, plus a pattern match of each
    Content-Usage rule of the applying group (counted as every line naming Content-Usage, an
    over-count), plus a glance at every record of the file (the file-wide pass).
    """
    lines = body.splitlines()
    wild = sum(1 for line in lines if "*" in line)
    prefs = sum(1 for line in lines if "content-usage" in line.lower())
    chars = sum(len(url) for url in urls)
    per_agent = CHAR_STEPS * chars
    per_agent += (wild + prefs) * (RULE_STEPS * len(urls) + chars)
    per_agent += LINE_STEPS * len(lines) * len(urls)
    return len(agents) * per_agent


def is_cheap(body: str, cost: int) -> bool:
    """Whether a check or usage table of ``body`` estimated at ``cost`` steps is answered in
    the server process rather than queued for a worker (see the module docstring). Only with
    the native core: the model's steps are the kernel's, and the pure core is 12 to 16 times
    slower, so there every request goes to the pool as before."""

    return robotrules.NATIVE and cost <= CHEAP_STEPS and len(body) <= CHEAP_BYTES


_JOBS: dict[str, Callable[..., dict[str, Any]]] = {
    "check": check, "lint": lint_findings, "diff": diff, "usage": usage_table,
    "registry": registry,
}


def run_job(name: str, args: tuple[Any, ...]) -> dict[str, Any]:
    """Job ``name`` here and now, in the calling thread (for cheap work; see :func:`is_cheap`)."""
    return _JOBS[name](*args)


def _worker_main(conn: Connection, memory: int) -> None:  # pragma: no cover - child process

    # Ctrl-C in a terminal reaches the whole process group: the server stops its workers
    # itself, so a worker ignores it rather than die with a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the server's event loop (GET /, the queue) wins the CPU over the heavy work
    with contextlib.suppress(AttributeError, OSError):
        os.nice(10)
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ImportError, ValueError, OSError):
        pass  # no limit on this platform: the deadline still holds
    while True:
        try:
            name, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[Any, ...] = ("ok", _JOBS[name](*args))
        except MemoryError:
            reply = ("error", 422, "the request needs more memory than a worker may use; "
                     "send a smaller file or fewer URLs")
        except RobotrulesError as exc:
            reply = ("error", 422, str(exc))
        except Exception as exc:  # reported to the caller; the worker lives on
            reply = ("error", 500, f"internal error in {name}: {type(exc).__name__}")
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


# -- the pool -----------------------------------------------------------------------------------


class Busy(Exception):
    """Every slot stayed taken for the whole wait: answer 429 with ``retry_after``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the tester is busy with other checks; retry in {retry_after} s")
        self.retry_after = retry_after


class TooSlow(Exception):
    """The job passed its deadline and its process was killed."""


class Gone(Exception):
    """The client disconnected; the job's process was killed."""


class JobFailed(Exception):
    """The job raised (``status`` 422 or 500) or its process died."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Worker:
    def __init__(self, ctx: Any, memory: int) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, memory), daemon=True,
                                   name="robotrules-web-worker")
        self.process.start()
        child.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


class WorkPool:
    """At most ``size`` jobs at once, each in its own killable worker process."""

    def __init__(self, size: int, *, wait: float, deadline: float,
                 memory: int = WORKER_MEMORY) -> None:
        self.size = size
        self.wait = wait
        self.deadline = deadline
        self.memory = memory
        self.killed = 0  # processes killed (deadline or disconnect), for tests and logs
        self.running = 0  # jobs holding a worker now, for tests and logs
        self._slots = threading.BoundedSemaphore(size)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._ctx: Any = None

    def _context(self) -> Any:
        if self._ctx is None:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods
                                              else "spawn")
            if ctx.get_start_method() == "forkserver":
                ctx.set_forkserver_preload([__name__])
            self._ctx = ctx
        return self._ctx

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
                worker.kill()
        return _Worker(self._context(), self.memory)

    def _dispatch(self, name: str, args: tuple[Any, ...]) -> _Worker:
        worker = self._take()
        try:
            worker.conn.send((name, args))
        except (OSError, ValueError):
            worker.kill()
            worker = _Worker(self._context(), self.memory)
            worker.conn.send((name, args))
        return worker

    async def run(self, name: str, args: tuple[Any, ...],
                  disconnected: Callable[[], Awaitable[bool]]) -> dict[str, Any]:
        """Run job ``name`` in a worker; raise Busy, TooSlow, Gone or JobFailed."""
        import anyio
        from starlette.concurrency import run_in_threadpool

        give_up = time.monotonic() + self.wait
        while not self._slots.acquire(blocking=False):
            if time.monotonic() >= give_up:
                raise Busy(max(1, round(self.deadline / 2)))
            if await disconnected():
                raise Gone()
            await anyio.sleep(0.05)
        self.running += 1
        try:
            worker = await run_in_threadpool(self._dispatch, name, args)
            end = time.monotonic() + self.deadline
            while not worker.conn.poll():
                if not worker.process.is_alive():
                    worker.kill()
                    raise JobFailed(422, "the check stopped before it finished (too much "
                                    "memory?); send a smaller file or fewer URLs")
                if time.monotonic() > end:
                    self._kill(worker)
                    raise TooSlow(f"the work did not finish within {self.deadline:g} s and was "
                                  "stopped; send a smaller file, fewer or shorter URLs, or "
                                  "fewer agents")
                if await disconnected():
                    self._kill(worker)
                    raise Gone()
                await anyio.sleep(0.02)
            try:
                reply = await run_in_threadpool(worker.conn.recv)
            except (EOFError, OSError):
                worker.kill()
                raise JobFailed(500, "the worker process ended unexpectedly") from None
            with self._lock:
                self._idle.append(worker)
        finally:
            self.running -= 1
            self._slots.release()
        if reply[0] == "ok":
            result: dict[str, Any] = reply[1]
            return result
        raise JobFailed(reply[1], reply[2])

    def _kill(self, worker: _Worker) -> None:
        worker.kill()
        self.killed += 1

    def warm(self) -> None:
        """Start every worker now (blocking: call from a thread), so no request pays for it."""
        with self._lock:
            missing = self.size - len(self._idle)
        started = [_Worker(self._context(), self.memory) for _ in range(max(0, missing))]
        with self._lock:
            self._idle.extend(started)

    def close(self) -> None:
        """Stop the idle workers (running ones end with their requests)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
