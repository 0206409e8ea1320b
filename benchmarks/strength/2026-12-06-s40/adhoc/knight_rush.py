"""At the knight rush's decisive turn, which moves keep our king on every believed board? (session 40)

Usage: python knight_rush.py SUITE.jsonl.gz TURN SENSE_SQUARE

SUITE is ``benchmarks/turn_screen.py extract`` of the lost game (every believed board kept, the true
board among them). The believed boards are cut by what a sense at SENSE_SQUARE shows on the true board,
as in the game; then every legal request (and the pass) is played on each with RBC's revision, and the
boards on which the opponent can then capture our king are counted. Prints the boards where our king is
attacked, the twelve requests that lose it on the fewest boards, and our king's own moves.
"""

from __future__ import annotations

import gzip
import json
import sys

import chess
from reconchess.utilities import move_actions

from rbc_bot.belief_rows import decode
from rbc_bot.board_sample import our_king_attacked
from rbc_bot.engine import king_capture_moves
from rbc_bot.rules import revise, sense_window

sys.path.insert(0, "benchmarks")
from turn_screen import TurnPosition


def main() -> None:
    path, turn, square = sys.argv[1], int(sys.argv[2]), chess.parse_square(sys.argv[3])
    with gzip.open(path, "rt") as suite:
        rows = [json.loads(line) for line in suite]
    position = TurnPosition.from_dict(next(row for row in rows if row["turn"] == turn))
    truth = position.truth
    window = sense_window(square)
    boards = decode(position.rows, truth.turn)
    kept = [b for b in boards if all(b.piece_at(s) == truth.piece_at(s) for s in window)]
    print(f"{len(boards)} believed boards, {len(kept)} after the sense at {sys.argv[3]}")
    for board in kept:
        if our_king_attacked(board):
            print("our king attacked:", board.fen())
    losses = []
    for request in [*move_actions(truth), None]:
        lost = 0
        for board in kept:
            taken, _ = revise(board, request)
            after = board.copy(stack=False)
            after.push(taken or chess.Move.null())
            lost += bool(king_capture_moves(after))
        losses.append((lost, str(request)))
    print("fewest king losses:", sorted(losses)[:12])
    king = truth.king(truth.turn)
    print("our king's own moves:", sorted(x for x in losses if x[1][:2] == chess.square_name(king)))


if __name__ == "__main__":
    main()
