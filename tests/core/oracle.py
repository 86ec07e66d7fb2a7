"""Google's C++ matcher (google/robotstxt robots.cc) through jwm-robotstxt: the test oracle.

It takes the body as bytes, the agent as a bare product token and the URL as given.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jwm.robotstxt")
from jwm.robotstxt import googlebot

_MATCHER = googlebot.RobotsMatcher()


def google_allowed(body: bytes, agent: str, url: str) -> bool:
    return bool(_MATCHER.OneAgentAllowedByRobots(body, agent.encode("utf-8"),
                                                 url.encode("utf-8", "surrogateescape")))
