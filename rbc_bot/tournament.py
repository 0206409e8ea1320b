"""Tournaments: every pair of bots plays a small colour-swapped match; a crosstable and Elo against
the field (games through ``rbc_bot.runner``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rbc_bot import stats
from rbc_bot.game import short_name
from rbc_bot.match import validate_spec
from rbc_bot.players import BotSpec
from rbc_bot.runner import RESULTS_FILE, Backend, GameJob, RecordBook, game_points, prepare_out_dir, run_games
from rbc_bot.start import position_for, start_board


def tournament_jobs(
    bots: list[BotSpec], games_per_pair: int, seed: int, positions: Sequence[str] = ()
) -> list[GameJob]:
    """For each pair i < j: ``games_per_pair`` games in colour-swapped pairs, seed ``seed + pair number``,
    both games of a pair from the same start (``positions[pair number % len]``, or the standard one)."""
    jobs: list[GameJob] = []
    pair_number = 0
    for i in range(len(bots)):
        for j in range(i + 1, len(bots)):
            for game in range(games_per_pair):
                number = pair_number + game // 2
                i_white = game % 2 == 0
                white, black = (i, j) if i_white else (j, i)
                meta = {"white_bot": white, "black_bot": black, "pair": number}
                start = position_for(positions, number)
                jobs.append(GameJob(len(jobs), bots[white], bots[black], seed + number, meta, start))
            pair_number += (games_per_pair + 1) // 2
    return jobs


def tournament_table(names: list[str], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Crosstable (points and games for each bot against each other bot) and Elo against the field.

    Each bot's Elo is the logistic Elo of its score over all its games against the rest of the field,
    with a trinomial 95 % CI: simple and honest about its uncertainty, but relative to *this* field
    (a weak field inflates everybody's number), not a joint Bradley-Terry fit.
    """
    n = len(names)
    points = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    per_bot: list[list[float]] = [[] for _ in range(n)]
    crashes = [0] * n
    timeouts = [0] * n
    for r in records:
        w, b = r["white_bot"], r["black_bot"]
        pw, pb = game_points(r, "white"), game_points(r, "black")
        points[w][b] += pw
        points[b][w] += pb
        games[w][b] += 1
        games[b][w] += 1
        per_bot[w].append(pw)
        per_bot[b].append(pb)
        for color, bot in (("white", w), ("black", b)):
            crashes[bot] += r["crashed"] == color
            timeouts[bot] += r["timed_out"] == color
    bots = []
    for k, name in enumerate(names):
        entry: dict[str, Any] = {
            "name": name,
            "games": len(per_bot[k]),
            "points": sum(per_bot[k]),
            "score": sum(per_bot[k]) / len(per_bot[k]) if per_bot[k] else None,
            "wld": _wins_losses_draws(per_bot[k]),
            "crashes": crashes[k],
            "timeouts": timeouts[k],
            "elo": None,
            "elo_ci95": None,
        }
        if per_bot[k]:
            estimate = stats.elo_estimate(stats.trinomial(per_bot[k]))
            entry.update(
                elo=estimate.elo,
                elo_ci95=estimate.elo_ci95,
                elo_lower=estimate.lower,
                elo_upper=estimate.upper,
            )
        bots.append(entry)
    return {
        "elo_method": "logistic Elo of each bot's score against the whole field, trinomial 95% CI",
        "bots": bots,
        "crosstable": {"points": points, "games": games},
    }


def _wins_losses_draws(points: list[float]) -> list[int]:
    losses, draws, wins = stats.trinomial(points)
    return [wins, losses, draws]


def run_tournament(
    bots: list[BotSpec],
    out_dir: Path,
    *,
    games_per_pair: int,
    seconds: float,
    increment: float,
    seed: int = 0,
    jobs: int = 1,
    isolate: bool = True,
    watchdog_margin: float = 120.0,
    positions: Sequence[str] = (),
    on_record: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None,
    backend: Backend | None = None,
) -> dict[str, Any]:
    """Round robin: every pair plays ``games_per_pair`` games; ``out_dir/summary.json`` gets the table."""
    if len(bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    if games_per_pair < 1:
        raise ValueError(f"--games-per-pair must be at least 1: {games_per_pair}")
    if seconds <= 0 or increment < 0 or jobs < 1:
        raise ValueError(f"need --seconds > 0, --increment >= 0, --jobs >= 1: {seconds}, {increment}, {jobs}")
    for fen in positions:
        start_board(fen)
    for bot in bots:
        validate_spec(bot)
    names = [short_name(bot) for bot in bots]
    if len(set(names)) != len(names):
        names = [f"{name}#{k + 1}" for k, name in enumerate(names)]
    out_dir = prepare_out_dir(out_dir, False, "choose another --out")
    settings = {
        "bots": [asdict(bot) for bot in bots],
        "names": names,
        "games_per_pair": games_per_pair,
        "seconds": seconds,
        "increment": increment,
        "seed": seed,
        "jobs": jobs,
        "positions": list(positions),
    }

    def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {"tournament": settings, **tournament_table(names, records), "games": records}

    book = RecordBook(out_dir, summary, on_record=on_record)
    try:
        run_games(
            tournament_jobs(bots, games_per_pair, seed, positions),
            out_dir=out_dir,
            results_path=out_dir / RESULTS_FILE,
            seconds=seconds,
            increment=increment,
            parallel=jobs,
            isolate=isolate,
            watchdog_margin=watchdog_margin,
            on_record=book.add,
            backend=backend,
        )
    finally:
        result = book.write()
    return result
