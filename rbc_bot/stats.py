"""Match statistics as engine testers compute them: logistic Elo with a 95 % CI, and a pentanomial SPRT.

Pure functions over counts, so they can be checked by hand.

* Results are counted from one side (A). Paired games (same seed, colours swapped) give a
  **pentanomial** count ``[LL, LD+DL, DD+WL+LW, WD+DW, WW]``, i.e. pairs scoring 0, 1/4, 1/2, 3/4, 1
  (the pair's mean game score). Unpaired games give a **trinomial** ``[L, D, W]`` (scores 0, 1/2, 1).
  Pairs are the better model: the two games of a pair are correlated (same seed), so their variance
  is estimated from pairs, not games (fishtest ``LLRcalc.py`` module docstring; OpenBench does the same).
* **Elo** is *logistic*: ``elo(s) = -400 log10(1/s - 1)``. The 95 % CI transforms the interval
  ``s ± 1.959964 * sqrt(var / N)`` of the mean score (``N`` pairs or games, ``var`` the variance of
  one pair's or game's score), as fishtest ``stat_util.get_elo`` does.
* **SPRT** uses *normalised* Elo (fishtest's default since 2020): ``nElo = 800/ln(10) * (mu - 1/2) /
  sigma_pg`` with ``sigma_pg`` the per-game standard deviation (``sqrt(2 var)`` for pairs). The LLR
  is the closed-form GSPRT approximation of Van den Bergh, "Normalized Elo, practical", section 4.2,
  implemented in fishtest ``LLRcalc.LLR_normalized_alt``:
  ``LLR = games/2 * ln((1 + (t - t0)^2) / (1 + (t - t1)^2))`` with ``t = (mu - 1/2) / sigma_pg``,
  ``t_i = nElo_i / (800/ln 10)`` and ``games = 2 * pairs``. Wald's bounds: ``ln(beta/(1-alpha))`` and
  ``ln((1-beta)/alpha)``.
* Empty categories are replaced by 1e-3 (fishtest ``LLRcalc.regularize``) where a zero would make the
  variance zero or the Elo infinite; Elo and CI use raw counts otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

Z_975 = 1.959963984540054
"""The 97.5 % quantile of the standard normal: a two-sided 95 % interval."""
NELO_PER_T = 800 / math.log(10)
"""Normalised Elo per unit of t-value (fishtest ``nelo_divided_by_nt``, 347.4...)."""
REGULARISER = 1e-3
Key = TypeVar("Key", bound=Hashable)


def logistic_elo(score: float) -> float:
    """Elo difference that makes ``score`` the expected score: ``-400 log10(1/score - 1)``."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def expected_score(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def regularise(counts: Sequence[float]) -> list[float]:
    """Replace empty categories by 1e-3, as fishtest does, so no estimate is degenerate."""
    return [c if c > 0 else REGULARISER for c in counts]


def mean_and_variance(counts: Sequence[float]) -> tuple[float, float, float]:
    """``(N, mean, variance)`` of the score distribution whose categories are evenly spaced in [0, 1]."""
    n = float(sum(counts))
    if n <= 0:
        raise ValueError("no results")
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    variance = sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / n
    return n, mean, variance


@dataclass(frozen=True)
class EloEstimate:
    """Logistic Elo of A over B with its 95 % interval (asymmetric in Elo: see lower and upper)."""

    elo: float
    elo_ci95: float
    """Half the width of the 95 % interval, fishtest style: ``(upper - lower) / 2``."""
    lower: float
    upper: float
    score: float
    n: float
    """Pairs (pentanomial) or games (trinomial)."""
    model: str
    """``"pentanomial"`` or ``"trinomial"``."""
    nelo: float
    """Normalised Elo, ``800/ln 10 * (score - 1/2) / sigma_per_game``."""


def elo_estimate(counts: Sequence[float]) -> EloEstimate:
    """Logistic Elo and 95 % CI from a pentanomial (5 counts) or trinomial (3 counts) result."""
    if len(counts) not in (3, 5):
        raise ValueError(f"expected 3 (L, D, W) or 5 (pentanomial) counts, got {len(counts)}")
    n, mean, variance = mean_and_variance(counts)
    if variance <= 0 or mean <= 0 or mean >= 1:
        _, mean, variance = mean_and_variance(regularise(counts))
    half_width = Z_975 * math.sqrt(variance / n)
    low_score = min(max(mean - half_width, 1e-9), 1 - 1e-9)
    high_score = min(max(mean + half_width, 1e-9), 1 - 1e-9)
    lower, upper = logistic_elo(low_score), logistic_elo(high_score)
    sigma_per_game = math.sqrt(2 * variance) if len(counts) == 5 else math.sqrt(variance)
    return EloEstimate(
        elo=logistic_elo(mean),
        elo_ci95=(upper - lower) / 2,
        lower=lower,
        upper=upper,
        score=mean,
        n=n,
        model="pentanomial" if len(counts) == 5 else "trinomial",
        nelo=NELO_PER_T * (mean - 0.5) / sigma_per_game,
    )


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds: accept H0 below ``ln(beta/(1-alpha))``, accept H1 above ``ln((1-beta)/alpha)``."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"alpha and beta must be in (0, 1), got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr_normalised(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """GSPRT log-likelihood ratio of H1 (nElo = nelo1) against H0 (nElo = nelo0), fishtest's approximation.

    ``LLR = games/2 * ln((1 + (t - t0)^2) / (1 + (t - t1)^2))`` (Van den Bergh, "Normalized Elo,
    practical", 4.2; fishtest ``LLR_normalized_alt``), computed on regularised counts as fishtest does.
    """
    if len(counts) not in (3, 5):
        raise ValueError(f"expected 3 (L, D, W) or 5 (pentanomial) counts, got {len(counts)}")
    if sum(counts) <= 0:
        return 0.0
    n, mean, variance = mean_and_variance(regularise(counts))
    if len(counts) == 5:
        sigma_per_game, games = math.sqrt(2 * variance), 2 * n
    else:
        sigma_per_game, games = math.sqrt(variance), n
    t = (mean - 0.5) / sigma_per_game
    t0, t1 = nelo0 / NELO_PER_T, nelo1 / NELO_PER_T
    return games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float
    elo0: float
    elo1: float
    alpha: float
    beta: float
    decision: str | None
    """``"H1"`` (A is at least elo1 stronger: accept), ``"H0"`` (reject) or None (keep playing)."""
    model: str


def sprt(
    counts: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05
) -> SprtState:
    """The SPRT on normalised Elo bounds ``elo0 < elo1``: LLR, Wald bounds and the decision if any."""
    if elo1 <= elo0:
        raise ValueError(f"SPRT needs elo0 < elo1, got {elo0} and {elo1}")
    lower, upper = sprt_bounds(alpha, beta)
    llr = llr_normalised(counts, elo0, elo1)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    model = "pentanomial" if len(counts) == 5 else "trinomial"
    return SprtState(llr, lower, upper, elo0, elo1, alpha, beta, decision, model)


def trinomial(points: Sequence[float]) -> list[int]:
    """``[L, D, W]`` from per-game points (0, 0.5, 1) of one side."""
    counts = [0, 0, 0]
    for p in points:
        counts[_half_points(p, 1)] += 1
    return counts


def pentanomial(pair_points: Sequence[tuple[float, float]]) -> list[int]:
    """``[LL, LD, DD+WL, WD, WW]`` from the points (0, 0.5, 1) one side scored in each game of each pair."""
    counts = [0, 0, 0, 0, 0]
    for first, second in pair_points:
        counts[_half_points(first, 1) + _half_points(second, 1)] += 1
    return counts


def _half_points(points: float, limit: int) -> int:
    halves = round(points * 2)
    if abs(points * 2 - halves) > 1e-9 or not 0 <= halves <= 2 * limit:
        raise ValueError(f"a game scores 0, 0.5 or 1, got {points}")
    return halves


def sign_test(better: int, worse: int) -> float:
    """Exact two-sided binomial p-value of ``better`` against ``worse`` under no difference (p = 1/2)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(better, worse) + 1)) / 2**n
    return min(1.0, 2 * tail)


Z_80 = 0.8416212335729143  # one-sided normal quantile for 80 % power


@dataclass(frozen=True)
class PairedDifference:
    """The candidate's mean points a game minus the base's over games paired by seed and colour."""

    mean: float
    low: float  # 95 % CI
    high: float
    games_needed: int | None  # pairs for a 95 % test to find a difference this size 80 % of the time


def paired_difference(differences: Sequence[float]) -> PairedDifference:
    """Normal-approximation CI of the mean of per-pair differences (each -1 .. 1), and how many pairs
    a difference of this size would need: ``((z_0.975 + z_0.8) * sd / mean)^2``. Why the second
    figure: a 40-game gate whose interval spans zero says little on its own; the games it would take
    say whether more games can settle it or whether the change is too small to measure that way."""
    n = len(differences)
    if n == 0:
        raise ValueError("no paired games")
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1) if n > 1 else 0.0
    half = Z_975 * math.sqrt(variance / n)
    needed = None
    if mean != 0 and variance > 0:
        needed = math.ceil(((Z_975 + Z_80) * math.sqrt(variance) / mean) ** 2)
    return PairedDifference(mean, mean - half, mean + half, needed)


@dataclass(frozen=True)
class PairedComparison:
    """Two configurations' points on the games both played (same seed and colour against the same
    opponent): totals, how often each did better, the sign test and the mean difference."""

    shared: int
    base_points: float
    candidate_points: float
    better: int  # games the candidate scored more on
    worse: int
    sign_p: float
    difference: PairedDifference


def compare_paired(base: Mapping[Key, float], candidate: Mapping[Key, float]) -> PairedComparison:
    """Pair ``candidate``'s points with ``base``'s by key (e.g. seed and colour); ValueError if none
    is shared."""
    shared = [key for key in candidate if key in base]
    if not shared:
        raise ValueError("no game played by both sides")
    better = sum(candidate[k] > base[k] for k in shared)
    worse = sum(candidate[k] < base[k] for k in shared)
    return PairedComparison(
        shared=len(shared),
        base_points=sum(base[k] for k in shared),
        candidate_points=sum(candidate[k] for k in shared),
        better=better,
        worse=worse,
        sign_p=sign_test(better, worse),
        difference=paired_difference([candidate[k] - base[k] for k in shared]),
    )
