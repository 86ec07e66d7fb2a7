"""robotrules.guard: identify, verify and enforce crawlers on the site's own server, and audit
its logs.

- :class:`Guard` (``guard.check(method, url, headers, peer)``): the decision core
  (:mod:`.core`, sans-I/O: one flow that yields the look-ups it needs; the request target as
  the app serves it, :mod:`.target`) with its two drivers and look-up workers
  (:mod:`.service`), and its :class:`Policy` (:mod:`.policy`);
- verification: :mod:`.webbotauth` (Web Bot Auth, RFC 9421 signatures), :mod:`.ranges`
  (published IP lists), :mod:`.rdns` (forward-confirmed reverse DNS), :mod:`.peer` (trusted
  proxies), :mod:`.registry` (what the crawler registry says about each);
- shells: :class:`GuardMiddleware` (ASGI) and :class:`WSGIGuardMiddleware` (WSGI);
- :mod:`.logs` (access logs) and :mod:`.audit` (the tallies behind ``robotrules audit``).

Needs the ``guard`` extra (``pip install 'robotrules[guard]'``) for signatures and DNS.
"""

from __future__ import annotations

from .asgi import GuardMiddleware
from .audit import Tally
from .core import Decision, Pending, Request, Verification
from .policy import Policy
from .ranges import RangeStore
from .service import Guard
from .wsgi import WSGIGuardMiddleware

__all__ = ["Decision", "Guard", "GuardMiddleware", "Pending", "Policy", "RangeStore",
           "Request", "ReverseDns", "Tally", "Verification", "WSGIGuardMiddleware",
           "WebBotAuth"]


def __getattr__(name: str) -> object:
    if name == "ReverseDns":
        from .rdns import ReverseDns

        return ReverseDns
    if name == "WebBotAuth":
        from .webbotauth import WebBotAuth

        return WebBotAuth
    raise AttributeError(name)
