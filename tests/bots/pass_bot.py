"""A test bot that never senses and never moves: the passive opponent (AttackerBot after a failed rush),
and the base of the other test bots here."""

import chess
from reconchess import Player


class PassBot(Player):
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
        return None

    def handle_move_result(self, *args: object) -> None:
        pass

    def handle_game_end(self, *args: object) -> None:
        pass
