"""Password hashing and checking, with the same cost for every wrong answer.

Hashes are scrypt with a per-user salt. The stock client polls every 0.5 s with HTTP Basic auth,
so running scrypt (~50 ms) on every request would cost a core under load: a credential that has
already passed scrypt is remembered as a keyed digest and accepted without it. That shortcut only
ever says yes. Any other password, for a known user or an unknown one (checked against a dummy
hash), pays the full scrypt, so timing tells a guesser nothing it could not learn by succeeding.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading

SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str, salt: bytes) -> bytes:
    # surrogatepass: any str a JSON body can carry hashes, none can crash the check.
    return hashlib.scrypt(password.encode("utf-8", "surrogatepass"), salt=salt, dklen=32, **SCRYPT)


class PasswordChecker:
    """Verifies passwords against stored (hash, salt) pairs; see the module docstring for the cache."""

    def __init__(self) -> None:
        self._key = os.urandom(32)
        self._verified: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._dummy_salt = os.urandom(16)
        self._dummy_hash = hash_password(os.urandom(16).hex(), self._dummy_salt)

    def _token(self, user_key: str, password: str) -> bytes:
        message = f"{user_key}\0{password}".encode("utf-8", "surrogatepass")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def verify(self, user_key: str, record: tuple[bytes, bytes] | None, password: str) -> bool:
        """``record`` is the user's (hash, salt), None for an unknown user (which never verifies)."""
        token = self._token(user_key, password)
        if record is not None:
            with self._lock:
                known = self._verified.get(user_key)
            if known is not None and hmac.compare_digest(known, token):
                return True
        expected, salt = record if record is not None else (self._dummy_hash, self._dummy_salt)
        ok = hmac.compare_digest(hash_password(password, salt), expected) and record is not None
        if ok:
            with self._lock:
                self._verified[user_key] = token
        return ok

    def forget(self, user_key: str) -> None:
        """Drop the remembered credential (the password changed)."""
        with self._lock:
            self._verified.pop(user_key, None)
