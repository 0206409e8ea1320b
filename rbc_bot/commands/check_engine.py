"""``check-engine``: show which Stockfish is used, its ``id name`` and a test search.

Why: the first thing to check on a new machine (or when a game logs engine restarts) is whether the
lookup finds the binary you expect and whether it searches at all.
"""

from __future__ import annotations

import argparse
import logging
import time

import chess

from rbc_bot.commands.common import RUNTIME, error
from rbc_bot.engine import EngineError, EnginePool, StockfishNotFoundError, find_stockfish

logger = logging.getLogger(__name__)

TEST_POSITIONS = {
    "start position": chess.STARTING_FEN,
    "middlegame (QGD, move 9)": "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 9",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stockfish",
        metavar="PATH",
        default=None,
        help="Stockfish binary (default: $STOCKFISH_EXECUTABLE, stockfish_bin/stockfish, "
        "`stockfish` on PATH, /usr/games/stockfish, in that order)",
    )
    parser.add_argument("--nodes", type=int, default=100_000, help="node limit of the test search")


def run(args: argparse.Namespace) -> int:
    if args.nodes < 1:
        return error(f"--nodes must be >= 1, got {args.nodes}")
    try:
        path = find_stockfish(args.stockfish)
    except StockfishNotFoundError as exc:
        return error(exc)
    print(f"binary:  {path}")
    try:
        with EnginePool(path, workers=1, deterministic=True, timeout=60.0) as pool:
            print(f"engine:  {pool.name}")
            for label, fen in TEST_POSITIONS.items():
                board = chess.Board(fen)
                started = time.perf_counter()
                moves = pool.top_moves([board], 1, nodes=args.nodes)[0]
                seconds = time.perf_counter() - started
                if not moves:
                    return error(f"no best move for the {label} ({fen})", RUNTIME)
                move, score = moves[0]
                print(
                    f"search:  {label}: best {board.san(move)} ({move.uci()}), "
                    f"{score:+.0f} cp for {'White' if board.turn else 'Black'}, "
                    f"{args.nodes} nodes in {seconds:.2f} s"
                )
            if pool.stats.restarts:
                return error(f"the engine died {pool.stats.restarts} time(s) during the test", RUNTIME)
    except EngineError as exc:
        return error(exc, RUNTIME)
    return 0
