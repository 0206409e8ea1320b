"""A test bot that passes, and raises if another instance of it lives in the same process.

Two of them in one game show whether each bot really has its own process (its own module globals).
"""

import chess
from reconchess import Player

INSTANCES = 0


class LonelyBot(Player):
    def __init__(self) -> None:
        global INSTANCES
        INSTANCES += 1

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: int | None) -> None:
        pass

    def choose_sense(
        self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float
    ) -> None:
        return None

    def handle_sense_result(self, sense_result: list[tuple[int, chess.Piece | None]]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        if INSTANCES != 1:
            raise RuntimeError(f"{INSTANCES} bots share this process")
        return None

    def handle_move_result(self, *args: object) -> None:
        pass

    def handle_game_end(self, *args: object) -> None:
        pass
