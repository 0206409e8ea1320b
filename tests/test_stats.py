"""Elo, CI and SPRT checked against arithmetic written out by hand from the formulas (see rbc_bot.stats)."""

from __future__ import annotations

import math

import pytest

from rbc_bot.stats import (
    elo_estimate,
    llr_normalised,
    paired_difference,
    pentanomial,
    sprt,
    sprt_bounds,
    trinomial,
)

# A pentanomial result over 10 pairs: [LL, LD, DD+WL, WD, WW] = [1, 1, 4, 3, 1].
PENTA = [1, 1, 4, 3, 1]
# Pair scores 0, 1/4, 1/2, 3/4, 1:  mean = (0*1 + .25*1 + .5*4 + .75*3 + 1*1) / 10 = 5.5 / 10
PENTA_MEAN = 0.55
# variance = (1*.55^2 + 1*.30^2 + 4*.05^2 + 3*.20^2 + 1*.45^2) / 10
#          = (.3025 + .09 + .01 + .12 + .2025) / 10 = .725 / 10
PENTA_VAR = 0.0725


def test_pentanomial_elo_and_ci_by_hand() -> None:
    est = elo_estimate(PENTA)
    # Elo(.55) = -400 log10(1/.55 - 1) = -400 log10(.45/.55) = 34.8600...
    assert est.elo == pytest.approx(-400 * math.log10(0.45 / 0.55), abs=1e-9)
    assert est.elo == pytest.approx(34.860, abs=1e-3)
    # standard error = sqrt(.0725 / 10) = .0851469; 95 % half width = 1.959964 * .0851469 = .166885
    half = 1.959964 * math.sqrt(0.0725 / 10)
    assert half == pytest.approx(0.166885, abs=1e-6)
    lower = -400 * math.log10(1 / (0.55 - half) - 1)  # Elo(.383115) = -400 log10(.616885/.383115) = -82.750
    upper = -400 * math.log10(1 / (0.55 + half) - 1)  # Elo(.716885) = -400 log10(.283115/.716885) = 161.395
    assert est.lower == pytest.approx(lower, abs=1e-3) and est.upper == pytest.approx(upper, abs=1e-3)
    assert est.elo_ci95 == pytest.approx((upper - lower) / 2, abs=1e-3)
    assert lower == pytest.approx(-82.750, abs=1e-3) and upper == pytest.approx(161.395, abs=1e-3)
    assert est.score == pytest.approx(PENTA_MEAN) and est.n == 10 and est.model == "pentanomial"
    # nElo = 800/ln10 * (.55 - .5) / sqrt(2 * .0725) = 347.4356 * .05 / .380789 = 45.620
    assert est.nelo == pytest.approx(347.4356 * 0.05 / 0.380789, abs=1e-2)


def test_trinomial_elo_and_ci_by_hand() -> None:
    # [L, D, W] = [3, 2, 5]: mean = (2*.5 + 5) / 10 = .6; var = (3*.36 + 2*.01 + 5*.16) / 10 = .19
    est = elo_estimate([3, 2, 5])
    assert est.score == pytest.approx(0.6)
    assert est.elo == pytest.approx(-400 * math.log10(0.4 / 0.6), abs=1e-9)  # 70.437
    half = 1.959964 * math.sqrt(0.19 / 10)  # .270163
    lower = -400 * math.log10(1 / (0.6 - half) - 1)
    upper = -400 * math.log10(1 / (0.6 + half) - 1)
    assert est.elo_ci95 == pytest.approx((upper - lower) / 2, abs=1e-3)
    assert est.model == "trinomial"


def test_pairing_tightens_the_interval_for_the_same_games() -> None:
    # The same 20 games as 10 pairs: anticorrelated pairs (a win and a loss) give a smaller variance.
    pairs = [(1.0, 0.0)] * 8 + [(1.0, 1.0), (0.0, 0.0)]
    games = [p for pair in pairs for p in pair]
    assert elo_estimate(pentanomial(pairs)).elo_ci95 < elo_estimate(trinomial(games)).elo_ci95


def test_sprt_bounds_by_hand() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and lower == pytest.approx(-2.944439, abs=1e-6)
    assert upper == pytest.approx(2.944439, abs=1e-6)
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_llr_normalised_pentanomial_by_hand() -> None:
    # t = (.55 - .5) / sqrt(2 * .0725) = .05 / .380789 = .131306; H0 nElo 0, H1 nElo 10: t1 = 10 / 347.4356
    t = 0.05 / math.sqrt(0.145)
    t1 = 10 / (800 / math.log(10))
    assert t == pytest.approx(0.131306, abs=1e-6) and t1 == pytest.approx(0.0287823, abs=1e-7)
    # LLR = games/2 * ln((1 + t^2) / (1 + (t - t1)^2)), games = 20 -> 10 * ln(1.0172413 / 1.0105111)
    expected = 10 * math.log((1 + t**2) / (1 + (t - t1) ** 2))
    assert expected == pytest.approx(0.06638, abs=1e-4)
    assert llr_normalised(PENTA, 0.0, 10.0) == pytest.approx(expected, rel=1e-9)


def test_llr_regularises_empty_categories_like_fishtest() -> None:
    # [0, 0, 2, 3, 0] -> [.001, .001, 2, 3, .001]: N = 5.003
    n = 5.003
    mean = (0.25 * 0.001 + 0.5 * 2 + 0.75 * 3 + 1 * 0.001) / n
    var = (0.001 * mean**2 + 0.001 * (0.25 - mean) ** 2 + 2 * (0.5 - mean) ** 2 + 3 * (0.75 - mean) ** 2) / n
    var += 0.001 * (1 - mean) ** 2 / n
    t = (mean - 0.5) / math.sqrt(2 * var)
    t0, t1 = -5 / 347.43558552, 5 / 347.43558552
    expected = n * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))  # games / 2 = pairs
    assert llr_normalised([0, 0, 2, 3, 0], -5.0, 5.0) == pytest.approx(expected, rel=1e-9)


def test_llr_trinomial_by_hand() -> None:
    # [3, 2, 5]: t = (.6 - .5) / sqrt(.19) = .229416; games = 10 -> LLR = 5 * ln((1 + t^2) / (1 + (t - t1)^2))
    t = 0.1 / math.sqrt(0.19)
    t1 = 20 / (800 / math.log(10))
    assert llr_normalised([3, 2, 5], 0.0, 20.0) == pytest.approx(
        5 * math.log((1 + t**2) / (1 + (t - t1) ** 2))
    )


def test_sprt_decides_when_llr_crosses_a_bound() -> None:
    # 300 pairs [15, 30, 90, 105, 60]: mean = (7.5 + 45 + 78.75 + 60) / 300 = .6375, clearly above 50 %.
    strong = [15, 30, 90, 105, 60]
    state = sprt(strong, 0.0, 10.0)
    var = (15 * 0.6375**2 + 30 * 0.3875**2 + 90 * 0.1375**2 + 105 * 0.1125**2 + 60 * 0.3625**2) / 300
    t = 0.1375 / math.sqrt(2 * var)
    t1 = 10 / (800 / math.log(10))
    assert state.llr == pytest.approx(300 * math.log((1 + t**2) / (1 + (t - t1) ** 2)))
    assert state.llr > 2.944439 and state.decision == "H1"
    mirrored = strong[::-1]  # the same result seen from the other side
    assert sprt(mirrored, 0.0, 10.0).decision == "H0"
    assert sprt([1, 2, 3, 2, 1], 0.0, 10.0).decision is None


def test_counting_and_bad_input() -> None:
    assert trinomial([0, 0.5, 1, 1]) == [1, 1, 2]
    assert pentanomial([(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1)]) == [1, 1, 2, 1, 1]
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        trinomial([0.3])
    with pytest.raises(ValueError, match="elo0 < elo1"):
        sprt(PENTA, 5.0, 0.0)
    with pytest.raises(ValueError, match="counts"):
        elo_estimate([1, 2, 3, 4])


def test_paired_difference_by_hand() -> None:
    # differences 1, 1, 0, 0: mean 0.5, sample variance (4 * 0.25) / 3 = 1/3,
    # half-width 1.959964 * sqrt(1/3 / 4) = 0.565792; pairs needed ((1.959964 + 0.841621) * sqrt(1/3)
    # / 0.5)^2 = 10.47 -> 11
    diff = paired_difference([1, 1, 0, 0])
    assert diff.mean == 0.5
    assert diff.low == pytest.approx(0.5 - 0.565792, abs=1e-6)
    assert diff.high == pytest.approx(0.5 + 0.565792, abs=1e-6)
    assert diff.games_needed == 11
    assert paired_difference([1, -1, 0, 0]).games_needed is None  # no difference to size
    assert paired_difference([0.5, 0.5]).games_needed is None  # no spread: nothing to estimate
    with pytest.raises(ValueError):
        paired_difference([])
