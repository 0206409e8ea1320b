"""Would a belief that carries each board's likelihood from turn to turn weigh the true board higher?

Usage: python carried_rank.py GAME.json ... [--cap 1500] [--depth 1] [--seed 0]

Why (hypothesis d, structural): the move weighs the believed boards by the rank of our depth-1 score
on each among the boards of this turn alone (rbc_bot.likely, fifths). A board whose history passed
through turns where it ranked well for us (the opponent's moves there were poor) could weigh less
for it. Each recorded game is replayed from our side's observations with weights that follow every
board: a child of the opponent's move inherits its parent's (boards reached twice add), filters keep
them. At each of our move decisions (after the sense) the truth's probability under each scheme is
compared with a uniform draw: the mean of log(N * P(truth)) in nats, 0 for uniform, higher better;
and how far each scheme's weights narrow the belief: the effective number of boards (sum w)^2 / sum
w^2 over the number of boards.

Schemes: ``rank`` today's weights; ``carry a`` today's weights times the product of the earlier
turns' rank weights raised to ``a``; ``moves`` today's weights times the product of 1 / (the
parent's number of moves) over the opponent's moves (a uniformly random opponent), ``moves only``
without today's weights, ``moves^b`` with the moves weights raised to ``b``.
Beliefs past --cap boards after the sense (and 20 x cap after the expansion) are sampled down
uniformly, the truth always kept: every scheme meets the same boards.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np

from rbc_bot.belief_observations import sense as sense_observation
from rbc_bot.belief_ops import _request_columns, apply_one_move
from rbc_bot.belief_rows import decode, encode
from rbc_bot.engine import EnginePool
from rbc_bot.expand_fast import build_children, generate
from rbc_bot.likely import FIFTH_WEIGHTS, rank_weights
from rbc_bot.replay.load import load_game, turns_of
from rbc_bot.replay.resim import truth_at_turn_start
from rbc_bot.rules import revise
from rbc_bot.start import history_start_board

CLIP = 2000
ALPHAS = (0.25, 0.5, 1.0)
POWERS = (0.5, 1.5, 2.0)  # the moves weights tempered (1: as they are)


class Weighted:
    """Belief rows with one log-weight column per scheme (0 = weight 1)."""

    def __init__(self, rows: np.ndarray, schemes: list[str]) -> None:
        self.rows = rows
        self.logw = {name: np.zeros(len(rows)) for name in schemes}
        self.sampled = False  # whether any sampling has dropped boards so far

    def keep(self, mask: np.ndarray) -> None:
        self.rows = self.rows[mask]
        self.logw = {k: v[mask] for k, v in self.logw.items()}

    def truth_index(self, truth: np.ndarray) -> int | None:
        hits = np.flatnonzero((self.rows == truth).all(axis=1))
        return int(hits[0]) if len(hits) else None

    def sample(self, cap: int, truth: np.ndarray, rng: np.random.Generator) -> None:
        if len(self.rows) <= cap:
            return
        t = self.truth_index(truth)
        pick = rng.choice(len(self.rows), size=cap, replace=False)
        if t is not None and t not in pick:
            pick[0] = t
        mask = np.zeros(len(self.rows), dtype=bool)
        mask[pick] = True
        self.keep(mask)
        self.sampled = True

    def expand(self, mover: chess.Color, capture: int | None, ours: list[int]) -> None:
        """Children of every row; a child's weights its parent's, summed over parents reaching it."""
        white = mover == chess.WHITE
        moves = generate(self.rows, mover, capture)
        counts = np.bincount(generate(self.rows, mover, None).parent, minlength=len(self.rows))
        for square in ours:  # every capture the opponent could have made, for its number of moves
            counts += np.bincount(generate(self.rows, mover, square).parent, minlength=len(self.rows))
        children = build_children(self.rows, moves, white)
        view = np.ascontiguousarray(children).view(np.dtype((np.void, children.shape[1])))[:, 0]
        _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        logw = {}
        for name, parent_logw in self.logw.items():
            child = parent_logw[moves.parent]
            if name == "moves":
                child = child - np.log(np.maximum(counts[moves.parent], 1))
            shift = child.max() if len(child) else 0.0
            summed = np.bincount(inverse, weights=np.exp(child - shift), minlength=len(first))
            logw[name] = np.log(summed) + shift
        self.rows = children[first]
        self.logw = logw

    def own_move(self, us: chess.Color, requested: chess.Move | None, taken: chess.Move | None,
                 capture: int | None) -> None:  # fmt: skip
        if requested is not None:
            columns = _request_columns(requested)
            groups = self.rows[:, columns]
            _, first, inverse = np.unique(groups, axis=0, return_index=True, return_inverse=True)
            boards = decode(self.rows[first], us)
            ok = np.array([revise(b, requested) == (taken, capture) for b in boards], dtype=bool)
            self.keep(ok[inverse.reshape(-1)])
        self.rows = apply_one_move(self.rows, taken, us)


def log_score(logw: np.ndarray, t: int) -> float:
    """log(N * P(truth)) for weights exp(logw)."""
    shift = logw.max()
    w = np.exp(logw - shift)
    return float(np.log(len(w) * w[t] / w.sum()))


def replay(path: Path, engine: EnginePool, cap: int, depth: int, rng: np.random.Generator,
           scores: dict[str, list[float]], spread: dict[str, list[float]]) -> int:  # fmt: skip
    game = load_game(path)
    history, us = game.history, game.our_color
    if us is None:
        us = chess.WHITE if "rbc_bot" in game.white_name else chess.BLACK
    belief = Weighted(encode(history_start_board(history))[None, :], ["carry", "moves"])
    turns = 0
    for turn in turns_of(history, us):
        truth = encode(truth_at_turn_start(history, turn))
        if not history.is_first_turn(turn):
            first = belief.rows[0, :64]
            ours = [sq for sq in range(64) if first[sq] and (first[sq] <= 6) == (us == chess.WHITE)]
            belief.expand(not us, history.capture_square(turn.previous), ours)
            belief.sample(20 * cap, truth, rng)
        square = history.sense(turn)
        if square is not None:
            seen = sense_observation(square, history.sense_result(turn))
            shown = np.array(seen.codes, dtype=np.int8)
            belief.keep((belief.rows[:, list(seen.squares)] == shown).all(axis=1))
        belief.sample(cap, truth, rng)
        t = belief.truth_index(truth)
        if t is None:
            print(f"{path.name}: truth lost at turn {turn.turn_number}; stopped", flush=True)
            break
        n = len(belief.rows)
        if n >= 5:
            boards = decode(belief.rows, us, 1)
            values = np.clip(np.array(engine.evaluate(boards, depth=depth), dtype=np.float64), -CLIP, CLIP)
            rank = np.log(rank_weights(values, FIFTH_WEIGHTS))
            size = "<=50" if n <= 50 else "51-500" if n <= 500 else ">500"
            entries = {"rank": rank, "moves": belief.logw["moves"] + rank, "moves only": belief.logw["moves"]}
            entries |= {f"carry {a}": a * belief.logw["carry"] + rank for a in ALPHAS}
            entries["moves+carry 0.5"] = belief.logw["moves"] + 0.5 * belief.logw["carry"] + rank
            entries |= {f"moves^{b}": b * belief.logw["moves"] + rank for b in POWERS}
            groups = [size, "all", "never sampled" if not belief.sampled else "sampled"]
            for name in ("rank", "moves only", "moves"):  # how many boards the weights leave in effect
                w = np.exp(entries[name] - entries[name].max())
                spread[f"{name} | {size}"].append(w.sum() ** 2 / (n * (w**2).sum()))
            for name, logw in entries.items():
                for group in groups:
                    scores[f"{name} | {group}"].append(log_score(logw, t))
            belief.logw["carry"] = belief.logw["carry"] + rank
            turns += 1
        if not history.has_move(turn):
            break
        requested, taken, capture = history.move_result(turn)
        if taken is not None and chess.Board(history.truth_fen_after_move(turn)).king(not us) is None:
            break
        belief.own_move(us, requested, taken, capture)
    return turns


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--cap", type=int, default=1500)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    engine = EnginePool(workers=1)
    scores: dict[str, list[float]] = defaultdict(list)
    spread: dict[str, list[float]] = defaultdict(list)  # effective sample size over boards, per turn
    for path in args.games:
        turns = replay(path, engine, args.cap, args.depth, rng, scores, spread)
        print(f"{path.name}: {turns} turns", flush=True)
    engine.close()
    for name in sorted(scores):
        a = np.array(scores[name])
        half = 1.96 * a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
        print(f"{name:>32}: n={len(a):4d} mean log(N P(truth)) {a.mean():+.3f} (95 % CI +-{half:.3f})")
    for name in sorted(spread):
        a = np.array(spread[name])
        low = np.quantile(a, 0.1)
        print(f"{name:>32}: effective boards / boards, median {np.median(a):.2f}, tenth {low:.2f}")


if __name__ == "__main__":
    main()
