"""Bot specs: the names users type (``rbc_bot``, ``trout``, a module or a file) turned into Players.

A spec is a small picklable value, so a match can send it to a child process and build the bot
there: one bot's global state never touches the other's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from reconchess import Player, load_player

BUILTIN_MODULES = {
    "trout": "reconchess.bots.trout_bot",
    "attacker": "reconchess.bots.attacker_bot",
    "random": "reconchess.bots.random_bot",
}
OUR_BOT = "rbc_bot"


class BotSpecError(ValueError):
    """A bot spec that cannot be loaded; the message names the spec and the reason."""


@dataclass(frozen=True)
class BotSpec:
    """What to play: ``spec`` is ``rbc_bot``, a built-in name, a module name or a ``.py`` file.

    ``overrides`` (``key=value``) and ``config_file`` (TOML) configure our bot only.
    """

    spec: str
    overrides: tuple[str, ...] = field(default=())
    config_file: str | None = None

    @property
    def is_ours(self) -> bool:
        return self.spec in (OUR_BOT, "rbc_bot.bot")

    @property
    def name(self) -> str:
        if self.is_ours:
            return OUR_BOT if not self.overrides else f"{OUR_BOT}[{','.join(self.overrides)}]"
        return self.spec

    def player_class(self) -> type[Player]:
        """Import the Player class now, so a bad spec fails before any game starts."""
        if self.is_ours:
            from rbc_bot.bot import RbcBot

            return RbcBot
        if (self.overrides or self.config_file) and not self.is_ours:
            raise BotSpecError(f"bot {self.spec!r}: --set/--config apply to rbc_bot only")
        module = BUILTIN_MODULES.get(self.spec, self.spec)
        if module == BUILTIN_MODULES["trout"]:
            export_stockfish_for_trout()
        try:
            _, cls = load_player(module)
        except Exception as exc:  # load_player raises anything the module raises on import
            raise BotSpecError(
                f"cannot load bot {self.spec!r}: {type(exc).__name__}: {exc}. "
                f"Use rbc_bot, {', '.join(BUILTIN_MODULES)}, a module name or a path to a .py file."
            ) from exc
        return cls

    def validate(self) -> None:
        """Raise BotSpecError unless this spec can build a player: its config, and for our bot the
        Stockfish it will use (a binary that is missing or does not speak UCI), so that a game is never
        played by material alone unless ``engine.material_only`` asks for it."""
        self.player_class()
        if self.is_ours:
            engine = self.config().engine
            if not engine.material_only:
                check_stockfish(engine.path, f"bot {self.name}")

    def config(self) -> Any:
        from rbc_bot.config import load_config

        try:
            return load_config(self.config_file, self.overrides)
        except ValueError as exc:
            raise BotSpecError(f"bot {self.name}: {exc}") from exc

    def create(self, **kwargs: Any) -> Player:
        """Build a fresh Player; ``kwargs`` go to our bot only (e.g. ``turn_log_path``)."""
        cls = self.player_class()
        if self.is_ours:
            return cls(config=self.config(), **kwargs)
        return cls()


def check_stockfish(path: str | None, who: str) -> None:
    """Start the Stockfish ``path`` names (or the one found) and quit it; BotSpecError if that fails."""
    from rbc_bot.engine import EngineError, EnginePool, StockfishNotFoundError

    try:
        EnginePool(path, workers=1, timeout=10.0).close()
    except (StockfishNotFoundError, EngineError, OSError) as exc:
        raise BotSpecError(f"{who}: Stockfish does not work: {exc}") from exc


def export_stockfish_for_trout() -> None:
    """TroutBot reads STOCKFISH_EXECUTABLE in its constructor: point it at the engine we found, and
    refuse one that is not there (TroutBot would crash on it, and the game would count as our win)."""
    given = os.environ.get("STOCKFISH_EXECUTABLE")
    if given:
        check_stockfish(given, "trout: $STOCKFISH_EXECUTABLE")
        return
    from rbc_bot.engine import find_stockfish

    os.environ["STOCKFISH_EXECUTABLE"] = str(find_stockfish())
