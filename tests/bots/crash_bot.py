"""A test bot that plays randomly and raises in ``choose_move`` on its third turn."""

import random

import chess
from reconchess import Player


class CrashOnThirdTurnBot(Player):
    def __init__(self) -> None:
        self.turns = 0

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
        self.turns += 1
        if self.turns == 3:
            raise RuntimeError("deliberate crash on the third turn")
        return random.choice([*move_actions, None])

    def handle_move_result(self, *args: object) -> None:
        pass

    def handle_game_end(self, *args: object) -> None:
        pass
