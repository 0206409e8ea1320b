"""A test bot that plays random moves and takes its time hearing its first move results.

On the server ``handle_move_result`` runs while the opponent thinks on its own machine, so that time
is on nobody's clock: a local game must not charge it to the opponent either.
"""

import time

import reconchess.bots.random_bot as random_bot

SLOW_RESULTS = 5
SECONDS = 0.4


class SlowResultBot(random_bot.RandomBot):
    def __init__(self) -> None:
        self.results = 0

    def handle_move_result(self, *args: object) -> None:
        self.results += 1
        if self.results <= SLOW_RESULTS:
            time.sleep(SECONDS)
