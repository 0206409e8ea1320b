"""The belief's stash: boards sampled away, kept by the number of observations they have seen.

Sampling adds row blocks under an observation index; recovery takes uniform draws from the earliest
index. A stash is merged (deduplicated and shuffled) once, on its first draw, so a run of draws from
one big stash costs one pass over it; a merge that could not finish by the caller's deadline is not
started. A memory bound drops the oldest stashes first.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from rbc_bot.belief_ops import unique_rows
from rbc_bot.belief_rows import row_in

log = logging.getLogger(__name__)

MERGE_SECONDS_PER_ROW = 1.5e-6
"""Cost of merging a stash (deduplicate and shuffle), per row: 1.5 s for 1M rows on this repository's
2-core machine with a match running. A merge its deadline cannot cover is not started."""


@dataclass
class Stash:
    """Boards set aside by sampling; they have seen the first ``index`` observations."""

    index: int
    rows: np.ndarray


class StashStore:
    """Row blocks by observation index. Blocks are never modified in place, so :meth:`copy` (a
    snapshot for rolling back a failed observation) only copies the lists holding them."""

    def __init__(self) -> None:
        self._blocks: dict[int, list[np.ndarray]] = {}
        self._shuffled: set[int] = set()  # indices that are one deduplicated, shuffled block

    def copy(self) -> StashStore:
        other = StashStore()
        other._blocks = {index: list(blocks) for index, blocks in self._blocks.items()}
        other._shuffled = set(self._shuffled)
        return other

    def __bool__(self) -> bool:
        return bool(self._blocks)

    @property
    def size(self) -> int:
        return sum(len(block) for blocks in self._blocks.values() for block in blocks)

    @property
    def earliest(self) -> int:
        return min(self._blocks)

    def stashes(self) -> list[Stash]:
        """The stashes, earliest first (one per observation index)."""
        return [Stash(index, np.concatenate(self._blocks[index])) for index in sorted(self._blocks)]

    def indices(self) -> list[int]:
        """The observation indices that have a stash, earliest first (no boards copied)."""
        return sorted(self._blocks)

    def contains(self, index: int, row: np.ndarray) -> bool:
        return any(row_in(row, block) for block in self._blocks.get(index, []))

    def add(self, index: int, rows: np.ndarray) -> None:
        self._blocks.setdefault(index, []).append(rows)
        self._shuffled.discard(index)

    def bound(self, max_rows: int | None) -> int:
        """Drop the oldest stashes while more than ``max_rows`` rows are stashed (never the last one);
        the number of rows dropped (each drop logged)."""
        if max_rows is None:
            return 0
        total = self.size
        dropped_all = 0
        while total > max_rows and len(self._blocks) > 1:
            oldest = min(self._blocks)
            dropped = sum(len(block) for block in self._blocks.pop(oldest))
            self._shuffled.discard(oldest)
            total -= dropped
            dropped_all += dropped
            log.warning("belief: stash over %d boards; dropped %d boards of observation %d",
                        max_rows, dropped, oldest)  # fmt: skip
        return dropped_all

    def take(
        self, index: int, size: int | None, rng: np.random.Generator, deadline: float | None = None
    ) -> np.ndarray | None:
        """Up to ``size`` rows (None: all) of the stash at ``index``, uniformly drawn without
        replacement, or None (the stash untouched) when merging it would not finish by ``deadline``."""
        blocks = self._blocks[index]
        if len(blocks) > 1 or index not in self._shuffled:
            rows = sum(len(block) for block in blocks)
            if deadline is not None and time.perf_counter() + rows * MERGE_SECONDS_PER_ROW > deadline:
                return None
            merged = unique_rows(np.concatenate(blocks))
            blocks = [merged[rng.permutation(len(merged))]]
        del self._blocks[index]
        pool = blocks[0]
        size = len(pool) if size is None else size
        if len(pool) > size:
            self._blocks[index] = [pool[size:]]
            self._shuffled.add(index)
        else:
            self._shuffled.discard(index)
        return pool[:size]
