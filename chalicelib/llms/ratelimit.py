"""Token buckets for requests-per-minute and tokens-per-minute limits, shared by worker threads.

Kept rather than a library (pyrate-limiter, limits): one acquire takes from two budgets at once (a request
and its estimated tokens) without taking from either when the other must wait, and clock and sleep are
injected so the tests run in no time; ~60 lines against a dependency whose v3 API is built on sliding-window
buckets with a background leak task. The per-key API limit (auth.py) uses the same bucket; across warm
Lambdas it is per container, which API Gateway usage plans would fix (issue 17)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class TokenBucket:
    """Holds up to ``per_minute`` units, refilled continuously; ``take`` blocks until enough are there."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._level = float(per_minute)
        self._clock = clock
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
        self._stamp = now

    def wait_time(self, amount: float) -> float:
        """Seconds until ``amount`` can be taken (0 if now); a request larger than the bucket waits for a full one."""
        self._refill()
        needed = min(amount, self.capacity)
        return 0.0 if self._level >= needed else (needed - self._level) / self.rate

    def consume(self, amount: float) -> None:
        self._refill()
        self._level -= min(amount, self.capacity)


class RateLimiter:
    """Requests and tokens per minute; ``None`` means unlimited."""

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._requests = TokenBucket(requests_per_minute, clock) if requests_per_minute else None
        self._tokens = TokenBucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._lock = threading.Lock()
        self._sleep = sleep
        self.waited_s = 0.0

    def acquire(self, tokens: int = 0) -> float:
        """Block until one request of ``tokens`` estimated tokens may go; returns the seconds waited."""
        waited = 0.0
        while True:
            with self._lock:
                delay = max(
                    self._requests.wait_time(1) if self._requests else 0.0,
                    self._tokens.wait_time(tokens) if self._tokens and tokens else 0.0,
                )
                if delay <= 0:
                    if self._requests:
                        self._requests.consume(1)
                    if self._tokens and tokens:
                        self._tokens.consume(tokens)
                    self.waited_s += waited
                    return waited
            self._sleep(delay)
            waited += delay
