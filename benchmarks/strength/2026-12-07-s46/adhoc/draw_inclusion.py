"""How often would the move's sample hold the true board, drawn by the carried weights or uniformly?

Usage: python draw_inclusion.py GAME.json ... [--k 270] [--draws 200] [--seed 0]

Why (``move.prior_draw``, session 46): the move scores a sample of the believed boards (about 270 in
large beliefs) and judges each candidate by it. Drawn uniformly, the truth is in it with chance k / N;
drawn by the belief's carried weights (Gumbel top-k, as ``board_sample.PriorDraw`` draws, among the
uniform sample of 3,000 the move sees in larger beliefs), with the chance measured here. Each recorded
game is replayed from our side's observations through the bot's own ``BeliefTracker`` with
``belief.carry_weights`` on (its default cap and sampling); at each move decision with more than k
boards (the truth live), ``--draws`` weighted draws count how often the truth is among them. Printed:
the mean chance each way, by belief size, and the turns counted.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np

from rbc_bot.belief import BeliefTracker, encode
from rbc_bot.config import BeliefConfig
from rbc_bot.replay.load import load_game, turns_of
from rbc_bot.replay.resim import truth_at_turn_start
from rbc_bot.start import history_start_board

CHOICE_SAMPLE = 3_000  # as rbc_bot.bot: the move sees a uniform sample of this many boards at most


def weighted_chance(weights: np.ndarray, t: int, k: int, draws: int, rng: np.random.Generator) -> float:
    """The share of ``draws`` that hold row ``t``: each a uniform subset of ``CHOICE_SAMPLE`` rows (all
    when fewer), then a Gumbel top-k draw by ``weights`` among them."""
    held = 0
    for _ in range(draws):
        rows = np.arange(len(weights))
        if len(rows) > CHOICE_SAMPLE:
            rows = rng.choice(len(weights), size=CHOICE_SAMPLE, replace=False)
            if t not in rows:
                continue
        if len(rows) <= k:
            held += 1
            continue
        keys = np.log(weights[rows]) + rng.gumbel(size=len(rows))
        held += bool(keys[rows == t][0] >= -np.partition(-keys, k - 1)[k - 1])
    return held / draws


def uniform_chance(n: int, k: int) -> float:
    """The same for a uniform draw: k of the (at most ``CHOICE_SAMPLE``) boards seen, of ``n``."""
    return min(1.0, k / n)


Chances = dict[str, list[tuple[float, float]]]  # by belief size: (by the weights, uniformly) per turn


def replay(path: Path, k: int, draws: int, rng: np.random.Generator, out: Chances) -> int:
    game = load_game(path)
    history, us = game.history, game.our_color
    if us is None:
        us = chess.WHITE if "rbc_bot" in game.white_name else chess.BLACK
    tracker = BeliefTracker(us, history_start_board(history), config=BeliefConfig(carry_weights=True))
    counted = 0
    for turn in turns_of(history, us):
        if not history.is_first_turn(turn):
            tracker.on_opponent_move(history.capture_square(turn.previous))
        square = history.sense(turn)
        tracker.on_sense(square, history.sense_result(turn) if square is not None else [])
        truth = encode(truth_at_turn_start(history, turn))
        hits = np.flatnonzero((tracker.rows == truth).all(axis=1))
        n = len(tracker.rows)
        if len(hits) and n > k:
            chance = weighted_chance(tracker.weights(), int(hits[0]), k, draws, rng)
            size = f"{k + 1}-1000" if n <= 1000 else ">1000"
            for group in (size, "all"):
                out[group].append((chance, uniform_chance(n, k)))
            counted += 1
        if not history.has_move(turn):
            break
        requested, taken, capture = history.move_result(turn)
        if taken is not None and chess.Board(history.truth_fen_after_move(turn)).king(not us) is None:
            break
        tracker.on_own_move(requested, taken, capture)
    return counted


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--k", type=int, default=270)
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    out: Chances = defaultdict(list)
    for path in args.games:
        print(f"{path.name}: {replay(path, args.k, args.draws, rng, out)} turns", flush=True)
    for group, pairs in sorted(out.items()):
        weighted, uniform = np.array(pairs).T
        print(
            f"{group:>10}: n={len(pairs):4d} truth in the sample: by the weights {weighted.mean():.3f}, "
            f"uniformly {uniform.mean():.3f}"
        )


if __name__ == "__main__":
    main()
