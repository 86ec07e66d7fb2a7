"""Child processes started the way a terminal starts them.

A shell that runs a job in the background (``cmd &`` without job control, as CI runners and
``nohup`` do) starts it with SIGINT ignored, and an ignored signal stays ignored across
``exec``: a ``robotrules`` child started from such a test run would never see Ctrl-C, and the
tests of the "130 on Ctrl-C" contract would fail for a reason outside the code. Tests that
send SIGINT start their child with ``preexec_fn=default_sigint`` (POSIX ``sigaction``: "signals
set to be caught are reset to their default action" on exec, but ignored ones are not).
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """Run in the child between fork and exec: SIGINT back to its default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
