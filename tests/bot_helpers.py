"""Shared by the bot's tests (tests/test_bot.py, tests/test_bot_guards.py): a small deterministic bot."""

from __future__ import annotations

from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config

SMALL = ("engine.workers=1",)  # one engine process: the machine is shared


def small_bot(*overrides: str) -> RbcBot:
    return RbcBot(load_config(None, [*SMALL, "engine.deterministic=true", *overrides]))
