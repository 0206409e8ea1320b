"""A test bot that plays random moves and takes its time hearing its first move results.

On the server ``handle_move_result`` runs while the opponent thinks on its own machine, so that time
is on nobody's clock: a local game must not charge it to the opponent either.
"""

import random
import time

import chess
from reconchess import Player

SLOW_RESULTS = 5
SECONDS = 0.4


class SlowResultBot(Player):
    def __init__(self) -> None:
        self.results = 0

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: int | None) -> None:
        pass

    def choose_sense(
        self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float
    ) -> int:
        return random.choice(sense_actions)

    def handle_sense_result(self, sense_result: list[tuple[int, chess.Piece | None]]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        return random.choice([*move_actions, None])

    def handle_move_result(self, *args: object) -> None:
        self.results += 1
        if self.results <= SLOW_RESULTS:
            time.sleep(SECONDS)

    def handle_game_end(self, *args: object) -> None:
        pass
