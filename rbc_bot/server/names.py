"""Usernames: what a valid name is, and the key under which two names count as the same.

Names appear in logs, HTML pages and other players' game histories, so they are short and
printable with no whitespace (no log injection, no look-alikes made of invisible characters), and
they are unique after NFKC normalisation and case folding ("ALICE" and "Ａｌｉｃｅ" are "alice").
"""

from __future__ import annotations

import unicodedata

from rbc_bot.server.errors import ApiError, quote

MAX_NAME_LENGTH = 32


def name_key(name: object) -> str | None:
    """The comparison key of a name, or None for a value no stored name can match."""
    if not isinstance(name, str) or not name or len(name) > 4 * MAX_NAME_LENGTH:
        return None
    key = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: nothing stored can equal them
        return None
    return key


def check_username(name: object) -> str:
    """The NFKC form of a new username; ApiError(400) saying why when it is not acceptable."""
    if not isinstance(name, str):
        raise ApiError(f"username must be a string, got {type(name).__name__}")
    normal = unicodedata.normalize("NFKC", name)
    if not 1 <= len(normal) <= MAX_NAME_LENGTH:
        raise ApiError(f"username must be 1 to {MAX_NAME_LENGTH} characters, got {len(normal)}")
    bad = next((c for c in normal if not c.isprintable() or c.isspace() or c == ":"), None)
    if bad is not None:
        raise ApiError(
            f"invalid username {quote(name)}: character {quote(bad)} is not allowed"
            " (printable characters only, no whitespace, no ':')"
        )
    return normal


def check_text(value: object, what: str, limit: int = 200) -> str:
    """A free-text field (email, affiliation): a printable string of at most ``limit`` characters."""
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > limit or not value.isprintable():
        raise ApiError(f"{what} must be printable text of at most {limit} characters")
    return value
