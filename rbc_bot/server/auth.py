"""Who is asking: HTTP Basic credentials checked against the store, with login throttling.

Every request of the official API carries Basic auth, so this runs on every request: a known
good credential is cheap (see ``passwords``), a wrong one costs a full scrypt and counts against
both the user and the client address (see ``throttle``).
"""

from __future__ import annotations

import time

from rbc_bot.server.errors import ApiError
from rbc_bot.server.names import name_key
from rbc_bot.server.store import Store
from rbc_bot.server.throttle import Throttle

TOUCH_EVERY = 1.0  # write last_seen at most this often per user


class Unauthorized(ApiError):
    status = 401


class Throttled(ApiError):
    """Too many failed logins: ``retry_after`` seconds until the next try is heard."""

    status = 429

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many failed logins; retry in {retry_after:.0f} s")
        self.retry_after = retry_after


class Authenticator:
    def __init__(
        self, store: Store, per_user: Throttle | None = None, per_address: Throttle | None = None
    ) -> None:
        self.store = store
        self.per_user = per_user or Throttle(free=20)
        self.per_address = per_address or Throttle(free=10)
        self._touched: dict[str, float] = {}

    def check(self, username: str | None, password: str | None, address: str | None) -> str:
        """The stored username for these credentials; Unauthorized or Throttled otherwise."""
        if username is None or password is None:
            raise Unauthorized("HTTP Basic authentication required")
        user_key = "user:" + (name_key(username) or username[:64])
        address_key = f"addr:{address}"
        wait = max(self.per_user.retry_after(user_key), self.per_address.retry_after(address_key))
        if wait > 0:
            raise Throttled(wait)
        name = self.store.login(username, password)
        if name is None:
            self.per_user.failure(user_key)
            self.per_address.failure(address_key)
            raise Unauthorized("wrong username or password")
        now = time.time()
        if now - self._touched.get(name, 0.0) >= TOUCH_EVERY:
            self._touched[name] = now
            self.store.touch(name)
        return name
