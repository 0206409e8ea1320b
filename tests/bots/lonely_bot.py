"""A test bot that passes, and raises if another instance of it lives in the same process.

Two of them in one game show whether each bot really has its own process (its own module globals).
"""

import chess
from pass_bot import PassBot  # reconchess's load_player puts this folder on sys.path

INSTANCES = 0


class LonelyBot(PassBot):
    def __init__(self) -> None:
        global INSTANCES
        INSTANCES += 1

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> None:
        if INSTANCES != 1:
            raise RuntimeError(f"{INSTANCES} bots share this process")
        return None


def get_player() -> type[LonelyBot]:
    return LonelyBot
