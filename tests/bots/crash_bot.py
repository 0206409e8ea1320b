"""A test bot that plays randomly (reconchess's RandomBot) and raises in ``choose_move`` on its third
turn."""

import chess
import reconchess.bots.random_bot as random_bot


class CrashOnThirdTurnBot(random_bot.RandomBot):
    def __init__(self) -> None:
        self.turns = 0

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        self.turns += 1
        if self.turns == 3:
            raise RuntimeError("deliberate crash on the third turn")
        return super().choose_move(move_actions, seconds_left)
