"""Errors shared by the server's layers, and the one-line error convention of its two commands.

A refusal carries its HTTP status from wherever it is raised (store, game, route), so the HTTP
layer maps it to a response in one place and nothing user-supplied is ever echoed whole.
"""

from __future__ import annotations

import sys
from typing import TextIO

QUOTE_LIMIT = 40  # characters of user input an error message may quote


class ApiError(Exception):
    """A refused request: ``status`` is the HTTP code, the message says what is wrong."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, so an error never echoes a huge input back."""
    text = repr(value) if len(str(value)) <= 4 * limit else repr(str(value)[: 4 * limit])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fail(message: str, code: int, err: TextIO | None = None) -> int:
    """Print the command-line error line (``rbc-bot: error: ...``) and return the exit code.

    Exit 2 is a usage error (fix the command line), 1 a run-time failure.
    """
    first_line = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"rbc-bot: error: {first_line}", file=err or sys.stderr, flush=True)
    return code
