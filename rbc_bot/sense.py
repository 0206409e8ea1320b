"""Scan selectors: where to sense so that the fewest candidate boards survive.

``partition`` is the seed's selector: per square, partition the boards by what stands there; the
centre is the square whose largest partition is smallest, shifted inward so the 3x3 window lies on the
board. ``window`` partitions by the whole 3x3 window and minimises the expected number of boards left.
Both work on the belief's piece-code array, so they cost milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from rbc_bot.belief import N_CODES, partition_counts
from rbc_bot.board_sample import tier_weights
from rbc_bot.rules import inward, sense_window

INTERIOR = [8 * rank + file for rank in range(1, 7) for file in range(1, 7)]
_WEIGHTS = N_CODES ** np.arange(9, dtype=np.int64)  # base-13 key of a window's contents


def sample_rows(rows: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """At most ``k`` of ``rows``, uniformly without replacement (the selectors need a sample, not all)."""
    if len(rows) <= k:
        return rows
    return rows[rng.choice(len(rows), size=k, replace=False)]


def attacked_first(
    rows: np.ndarray, attacked: np.ndarray, k: int, share: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """At most ``k`` of ``rows``: those where our king is ``attacked`` first (up to ``share`` of ``k``),
    the rest drawn uniformly from the others; and how many of ``rows`` each one stands for. A threat on
    a few boards in a hundred is then in the sample that prices the senses, each board still weighing
    its share of the belief."""
    hit, calm = np.flatnonzero(attacked), np.flatnonzero(~attacked)
    n_hit = min(len(hit), max(1, int(k * share)) if len(calm) else k)
    n_calm = min(len(calm), k - n_hit)
    chosen = np.concatenate([rng.permutation(hit)[:n_hit], rng.permutation(calm)[:n_calm]])
    return rows[chosen], tier_weights([(len(hit), n_hit), (len(calm), n_calm)])


def partition_square(rows: np.ndarray) -> int:
    """The seed's rule: minimise the largest per-square partition, then shift inward."""
    largest = partition_counts(rows).max(axis=1)
    return inward(int(np.argmin(largest)))


def window_keys(rows: np.ndarray, centre: int) -> np.ndarray:
    """Each board's key for what a sense at ``centre`` (any square; an edge window has fewer squares)
    would show: boards that sense cannot tell apart share a key. ``rows`` may be full rows or N x 64
    piece codes."""
    window = sense_window(centre)
    return rows[:, window].astype(np.int64) @ _WEIGHTS[: len(window)]


def _window_groups(rows: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per interior centre (in INTERIOR order): each board's group index and the group sizes, boards
    grouped by what the 3x3 window would show."""
    for centre in INTERIOR:
        _, inverse, counts = np.unique(window_keys(rows, centre), return_inverse=True, return_counts=True)
        yield inverse.reshape(-1), counts


def _survivors(counts: np.ndarray, n: int) -> float:
    return float((counts.astype(np.float64) ** 2).sum()) / n


def survivors_at(rows: np.ndarray, centre: int) -> float:
    """The expected number of boards left after sensing at ``centre`` (any square), the truth being
    any of ``rows`` with equal chance."""
    if len(rows) == 0:
        return 0.0
    _, counts = np.unique(window_keys(rows, centre), return_counts=True)
    return _survivors(counts, len(rows))


def expected_survivors(rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """For each interior centre, the expected number of boards left after sensing there (sum n_i^2 / N),
    the truth any of ``rows`` with equal chance or, with ``weights``, drawn by them (sum W_i n_i / W:
    with the likeliest boards weighing most, rbc_bot.likely, the sense cuts the belief where the truth
    likely is, while the boards left still count one each, as the worst-board ranking counts them)."""
    if weights is None:
        return np.array([_survivors(counts, len(rows)) for _, counts in _window_groups(rows)])
    w = np.asarray(weights, dtype=np.float64)
    return np.array([
        float((np.bincount(inverse, weights=w, minlength=len(counts)) * counts).sum()) / w.sum()
        for inverse, counts in _window_groups(rows)
    ])  # fmt: skip


def danger_square(
    rows: np.ndarray, attacked: np.ndarray, min_share: float = 0.0, tolerance: float = 0.0
) -> int | None:
    """When our king is attacked on some boards but not all, the centre that best tells them apart
    (``attacked`` may mark any kind of board: the raid rule marks those where a king capture works).

    For each interior centre, the boards are grouped by what the window shows; the ambiguity left is
    the expected share of the minority (attacked vs safe) in the group we land in. The smallest wins,
    and among centres within ``tolerance`` of it the one leaving the fewest boards on average: a
    centre that tells almost every threat apart and also cuts the belief can beat one that settles
    the last rare threat but leaves most boards. None when every board agrees, or when fewer than
    ``min_share`` of the boards are attacked (a rare threat is the move selector's business: it
    scores attacked boards first; the sense does more good cutting the belief).
    """
    n_attacked = int(attacked.sum())
    if n_attacked == 0 or n_attacked == len(rows) or n_attacked < min_share * len(rows):
        return None
    weights = attacked.astype(np.float64)
    ambiguity, survivors = [], []
    for inverse, counts in _window_groups(rows):
        hits = np.bincount(inverse, weights=weights, minlength=len(counts))
        ambiguity.append(float(np.minimum(hits, counts - hits).sum()) / len(rows))
        survivors.append(_survivors(counts, len(rows)))
    near = np.array(ambiguity) <= min(ambiguity) + tolerance
    return INTERIOR[int(np.argmin(np.where(near, survivors, np.inf)))]


def king_square(rows: np.ndarray, king_code: int) -> int | None:
    """The centre that best locates the enemy king (code ``king_code``): the fewest king squares still
    possible on average after the sense, ties broken by expected survivors. None when every board
    already agrees where the king is. Used when we stand well: a located king can be captured."""
    on_square = rows[:, :64] == king_code
    has_king = on_square.any(axis=1)
    rows = rows[has_king]
    if len(rows) == 0:
        return None
    kings = np.argmax(on_square[has_king], axis=1).astype(np.int64)
    if (kings == kings[0]).all():
        return None
    scores = []
    for inverse, counts in _window_groups(rows):
        pairs = np.unique(inverse.astype(np.int64) * 64 + kings)
        distinct = np.bincount(pairs // 64, minlength=len(counts))
        scores.append((float((counts * distinct).sum()) / len(rows), _survivors(counts, len(rows))))
    return INTERIOR[min(range(len(scores)), key=scores.__getitem__)]


def _group_values(
    values: np.ndarray, inverse: np.ndarray, weights: np.ndarray, n_groups: int, how: str
) -> np.ndarray:
    """Each candidate's aggregate over each group of boards (candidates x groups): the (``weights``-)
    weighted mean, or the worst board (``min``), of its expected scores ``values`` (candidates x boards)."""
    if how == "min":
        order = np.argsort(inverse, kind="stable")
        sorted_groups = inverse[order]
        starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
        return np.minimum.reduceat(values[:, order], starts, axis=1)
    sums = np.zeros((values.shape[0], n_groups))
    np.add.at(sums.T, inverse, (values * weights).T)
    return sums / np.bincount(inverse, weights=weights, minlength=n_groups)


def decision_values(
    rows: np.ndarray, values: np.ndarray, how: str = "mean", weights: np.ndarray | None = None
) -> np.ndarray:
    """For each interior centre, the expected value of the move we would choose after sensing there.

    ``values`` holds each candidate move's expected score on each of the boards ``rows`` (candidates x
    boards). A sense splits the boards into groups by what the window shows; on each group we would
    choose the candidate with the best aggregate (``mean`` or ``min``), so the centre is worth the
    average over groups, weighted by their sizes, of that best aggregate. A sense that removes many
    boards but leaves the choice of move unchanged is worth no more than not sensing. ``weights``: how
    many believed boards each row stands for (``attacked_first``; default one each).
    """
    w = np.ones(len(rows)) if weights is None else np.asarray(weights, dtype=np.float64)
    result = []
    for inverse, counts in _window_groups(rows):
        best = _group_values(values, inverse, w, len(counts), how).max(axis=0)
        result.append(float((best * np.bincount(inverse, weights=w, minlength=len(counts))).sum() / w.sum()))
    return np.array(result)


def decision_square(
    rows: np.ndarray,
    values: np.ndarray,
    how: str = "mean",
    tolerance: float = 1e-3,
    weights: np.ndarray | None = None,
    survivors: np.ndarray | None = None,
    boards_per_point: float = 0.0,
) -> int:
    """The centre whose result best serves the move choice (``decision_values``); among centres within
    ``tolerance`` of the best, the one leaving the fewest boards on average.

    ``survivors``: each centre's expected boards left in the whole belief (default: in ``rows``). With
    ``boards_per_point`` set, every board a centre is expected to leave costs ``1 / boards_per_point``
    of its worth: in a small belief the move choice decides, in a large one cutting it does, since a
    belief left large stays hard to track and the sample's decision values are then least sure."""
    worth = decision_values(rows, values, how, weights)
    left = expected_survivors(rows) if survivors is None else survivors
    if boards_per_point > 0:
        worth = worth - left / boards_per_point
    near = worth >= worth.max() - tolerance
    return INTERIOR[int(np.argmin(np.where(near, left, np.inf)))]


def window_square(rows: np.ndarray, weights: np.ndarray | None = None) -> int:
    """The interior centre whose 3x3 window leaves the fewest boards on average (``expected_survivors``,
    the truth drawn by ``weights`` if given)."""
    return INTERIOR[int(np.argmin(expected_survivors(rows, weights)))]


def choose_sense_square(
    rows: np.ndarray, method: str, rng: np.random.Generator, window_sample: int = 4_000
) -> int:
    """The sense centre for ``method`` (partition, window or random) over the live boards ``rows``."""
    if method == "random" or len(rows) == 0:
        return int(rng.choice(INTERIOR))
    if method == "window":
        return window_square(sample_rows(rows, window_sample, rng))
    if method == "partition":
        return partition_square(rows)
    raise ValueError(f"unknown sense method {method!r} (partition, window, random; decision needs the bot)")
