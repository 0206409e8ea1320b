"""A base for what holds processes or threads and releases them in ``close()``: a ``with`` block
closes it however the block ends."""

from __future__ import annotations

from typing import Self


class Closing:
    """``with x:`` returns ``x`` and calls ``x.close()`` on the way out."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        raise NotImplementedError
