"""A test bot that never answers its first ``choose_sense``: only the watchdog can end its game."""

import time

import chess
from pass_bot import PassBot  # reconchess's load_player puts this folder on sys.path


class HangBot(PassBot):
    def choose_sense(
        self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float
    ) -> None:
        while True:
            time.sleep(60)


def get_player() -> type[HangBot]:
    return HangBot
