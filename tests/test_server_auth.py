"""Logins: wrong passwords always pay the hash, unknown users cost the same, failures are throttled."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
import requests
from server_helpers import ServerProcess

from rbc_bot.server.auth import Authenticator, Throttled, Unauthorized
from rbc_bot.server.passwords import hash_password
from rbc_bot.server.store import Store
from rbc_bot.server.throttle import Throttle


def fastest_seconds(*checks: Callable[[], object], runs: int = 9) -> list[float]:
    """The fastest of ``runs`` timings of each check, interleaved: a busy machine only slows some
    runs, and the minimum is the cost of the work itself."""
    best = [float("inf")] * len(checks)
    for _ in range(runs):
        for index, check in enumerate(checks):
            start = time.perf_counter()
            check()
            best[index] = min(best[index], time.perf_counter() - start)
    return best


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "auth.sqlite3")
    store.add_user("alice", "right")
    return store


def test_wrong_passwords_pay_the_hash_even_after_a_good_login(store: Store) -> None:
    assert store.login("alice", "right") == "alice"
    kdf, good, wrong = fastest_seconds(
        lambda: hash_password("x", b"0123456789abcdef"),
        lambda: store.login("alice", "right"),
        lambda: store.login("alice", "wrong"),
    )
    assert store.login("alice", "wrong") is None
    # Bounds loose enough for a busy machine; a shortcut for wrong passwords misses them 100-fold.
    assert wrong > 0.25 * kdf, f"a wrong password took {wrong * 1e3:.1f} ms, the hash {kdf * 1e3:.1f} ms"
    # The poll path stays cheap: a verified credential skips the KDF.
    assert wrong > 10 * good, f"the right password took {good * 1e3:.2f} ms, a wrong one {wrong * 1e3:.1f} ms"


def test_an_unknown_user_costs_the_same_as_a_known_one(store: Store) -> None:
    known, unknown, invalid = fastest_seconds(
        lambda: store.login("alice", "wrong"),
        lambda: store.login("nobody", "wrong"),
        lambda: store.login("no\nbody\ud800", "wrong"),
    )
    assert store.login("nobody", "wrong") is None
    for other in (unknown, invalid):
        assert 0.33 < other / known < 3.0, f"known user {known * 1e3:.1f} ms, unknown {other * 1e3:.1f} ms"


def test_a_changed_password_is_not_accepted_from_the_cache(store: Store) -> None:
    assert store.login("ALICE", "right") == "alice"  # names match after case folding
    store.add_user("alice", "new", replace=True)
    assert store.login("alice", "right") is None and store.login("alice", "new") == "alice"


def test_throttle_locks_a_key_after_free_failures_with_growing_lockouts() -> None:
    now = [0.0]
    throttle = Throttle(free=2, window=60, base=1, cap=8, clock=lambda: now[0])
    throttle.failure("k")
    throttle.failure("k")
    assert throttle.retry_after("k") == 0
    locks = []
    for _ in range(5):
        throttle.failure("k")
        locks.append(throttle.retry_after("k"))
    assert locks == [1, 2, 4, 8, 8]
    assert throttle.retry_after("other") == 0
    now[0] = 200.0  # window and lock over: a fresh start
    throttle.failure("k")
    assert throttle.retry_after("k") == 0


def test_failures_are_throttled_per_user_and_per_address(store: Store) -> None:
    store.add_user("bob", "pw")
    auth = Authenticator(store, per_user=Throttle(free=3), per_address=Throttle(free=5))

    def attempt(user: str, password: str, address: str) -> type[Exception] | str:
        try:
            return auth.check(user, password, address)
        except (Unauthorized, Throttled) as exc:
            return type(exc)

    # Per user: guesses for alice from many addresses lock alice, not bob, not other addresses' users.
    results = [attempt("alice", "guess", f"10.0.0.{i}") for i in range(5)]
    assert results[:4] == [Unauthorized] * 4 and results[4] is Throttled
    assert attempt("alice", "right", "10.0.1.1") is Throttled  # even the right password waits
    assert attempt("bob", "pw", "10.0.0.1") == "bob"
    # Per address: one address guessing many names is locked for every name.
    results = [attempt(f"user{i}", "guess", "10.9.9.9") for i in range(7)]
    assert results[:6] == [Unauthorized] * 6 and results[6] is Throttled
    assert attempt("bob", "pw", "10.9.9.9") is Throttled
    assert attempt("bob", "pw", "10.9.9.8") == "bob"


def test_wrong_logins_over_http_get_429_with_retry_after(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "throttle.sqlite3", users=[("alice", "right")]) as server:
        url = f"{server.url}/api/invitations/"
        codes = [requests.get(url, auth=("alice", f"guess{i}"), timeout=30).status_code for i in range(12)]
        assert codes[:10] == [401] * 10 and 429 in codes[10:], codes
        # While locked, even the right password waits (retried in case a slow machine let it expire).
        for _ in range(5):
            locked = requests.get(url, auth=("alice", "right"), timeout=30)
            if locked.status_code == 429:
                break
            assert locked.status_code == 200
            while requests.get(url, auth=("alice", "guess"), timeout=30).status_code != 429:
                pass
        assert locked.status_code == 429 and "too many failed logins" in locked.json()["error"]
        wait = int(locked.headers["Retry-After"])
        assert 1 <= wait <= 300
        time.sleep(wait + 0.5)
        assert requests.get(url, auth=("alice", "right"), timeout=30).status_code == 200
