"""The pacer tests' injected clock: time moves only when someone sleeps on it."""

from __future__ import annotations


class FakeClock:
    """A monotonic clock that only moves when someone sleeps on it."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
