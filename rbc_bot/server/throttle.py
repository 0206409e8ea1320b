"""Login throttling: failed logins per key (a user, an address) buy growing lock-outs.

After ``free`` failures within ``window`` seconds, each further failure locks the key for
``base * 2**k`` seconds (capped). A locked key is refused with 429 before any password check,
so a guesser gets a few tries per window and per address, not thousands a second. The cost is
that a flood of wrong passwords for a user also locks that user out for a while (at most ``cap``);
clients that honour Retry-After, like ours, wait and carry on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_KEYS = 100_000  # bound on remembered keys; expired ones are pruned past it


@dataclass
class _Record:
    failures: int
    first: float
    locked_until: float


class Throttle:
    def __init__(
        self,
        free: int = 5,
        window: float = 600.0,
        base: float = 1.0,
        cap: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.window = window
        self.base = base
        self.cap = cap
        self.clock = clock
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0 when it is not locked)."""
        with self._lock:
            record = self._records.get(key)
            return 0.0 if record is None else max(0.0, record.locked_until - self.clock())

    def failure(self, key: str) -> None:
        now = self.clock()
        with self._lock:
            record = self._records.get(key)
            if record is None or now - record.first > max(self.window, record.locked_until - record.first):
                record = self._records[key] = _Record(0, now, now)
            record.failures += 1
            if record.failures > self.free:
                lock = min(self.cap, self.base * 2.0 ** (record.failures - self.free - 1))
                record.locked_until = now + lock
            if len(self._records) > MAX_KEYS:
                self._prune(now)

    def _prune(self, now: float) -> None:
        for key, record in list(self._records.items()):
            if now - record.first > self.window and record.locked_until <= now:
                del self._records[key]
