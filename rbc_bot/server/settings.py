"""What a server game is played under: LocalGame's rules arguments plus the server's own time-outs."""

from __future__ import annotations

from dataclasses import dataclass

from reconchess import LocalGame


@dataclass(frozen=True)
class GameSettings:
    """LocalGame's constructor arguments plus the server's own time-outs (seconds)."""

    seconds: float | None = 900
    increment: float | None = 5
    reversible_moves_limit: int | None = 100
    full_turn_limit: int | None = None
    ready_timeout: float = 300.0

    def new_local_game(self) -> LocalGame:
        return LocalGame(
            seconds_per_player=self.seconds,
            seconds_increment=self.increment,
            reversible_moves_limit=self.reversible_moves_limit,
            full_turn_limit=self.full_turn_limit,
        )
