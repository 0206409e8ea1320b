"""In-process checks of the server's parts: password storage, Elo, ladder pairing, client backoff."""

from __future__ import annotations

import random
import time
from pathlib import Path

import chess
import pytest

from rbc_bot.server.client import Backoff
from rbc_bot.server.games import GameError
from rbc_bot.server.ladder import Ladder, elo_update, leaderboard
from rbc_bot.server.service import GameService
from rbc_bot.server.settings import GameSettings
from rbc_bot.server.store import Store, StoreError


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "units.sqlite3")


def test_passwords_are_salted_kdf_hashes_and_checked(store: Store) -> None:
    store.add_user("a", "same-password")
    store.add_user("b", "same-password")
    rows = store._query("SELECT username, password_hash, salt FROM users ORDER BY username")
    assert rows[0]["password_hash"] != rows[1]["password_hash"] and rows[0]["salt"] != rows[1]["salt"]
    assert b"same-password" not in rows[0]["password_hash"]
    assert store.login("a", "same-password") == "a"
    assert store.login("a", "same-password") == "a"  # second time from the cache
    assert store.login("a", "wrong") is None
    assert store.login("nobody", "same-password") is None
    with pytest.raises(StoreError, match="already taken"):
        store.add_user("a", "other")
    store.add_user("a", "new", replace=True)
    assert store.login("a", "new") == "a" and store.login("a", "same-password") is None


def test_elo_update_is_zero_sum_and_favours_the_underdog() -> None:
    white, black = elo_update(1500, 1500, 1.0, k=32)
    assert (white, black) == pytest.approx((1516, 1484))
    up, down = elo_update(1400, 1600, 1.0, k=32)
    assert up - 1400 > 16 and up + down == pytest.approx(3000)
    assert elo_update(1500, 1500, 0.5, k=32) == pytest.approx((1500, 1500))


def test_ladder_pairs_only_active_ranked_users_with_free_slots(store: Store) -> None:
    for name in ("r1", "r2", "r3", "casual"):
        store.add_user(name, "pw")
        store.touch(name)
    store.add_user("asleep", "pw")
    for name in ("r1", "r2", "r3", "asleep"):
        store.set_user_field(name, "ranked", 1)
    store.set_user_field("r3", "max_games", 0)
    service = GameService(store, GameSettings())
    ladder = Ladder(service, seed=1)
    (game_id,) = ladder.pair_once()
    row = store.get_game(game_id)
    assert row is not None and {row["white"], row["black"]} == {"r1", "r2"} and row["ranked"]
    assert store.open_invitations("r1") and store.open_invitations("r2")
    store.set_user_field("r1", "max_games", 1)
    store.set_user_field("r2", "max_games", 1)
    assert ladder.pair_once() == []  # both busy up to max_games
    game = service.get(game_id)
    game.error_resign(chess.WHITE)
    board = {e["username"]: e for e in leaderboard(store)}
    black = row["black"]
    assert board[black]["wins"] == 1 and board[black]["rating"] > 1500 > board[row["white"]]["rating"]


def test_unknown_game_is_404_and_non_player_403(store: Store) -> None:
    store.add_user("a", "pw")
    store.add_user("b", "pw")
    service = GameService(store, GameSettings())
    with pytest.raises(GameError) as missing:
        service.get(12345)
    assert missing.value.status == 404
    game_id, _ = service.create_game("a", "b", ["b"])
    with pytest.raises(GameError) as outsider:
        service.get(game_id).color_of("c")
    assert outsider.value.status == 403


def test_ready_timeout_makes_the_absent_player_lose_on_time(store: Store) -> None:
    store.add_user("a", "pw")
    store.add_user("b", "pw")
    service = GameService(store, GameSettings(ready_timeout=0.05))
    game_id, _ = service.create_game("a", "b", ["b"])
    service.get(game_id).ready(chess.BLACK)
    time.sleep(0.1)
    service.sweep()
    row = store.get_game(game_id)
    assert row is not None and (row["winner_color"], row["win_reason"]) == (0, "TIMEOUT")


def test_backoff_doubles_with_jitter_up_to_the_cap() -> None:
    backoff = Backoff(base=0.5, cap=4.0, rng=random.Random(3))
    delays = [backoff.next_delay() for _ in range(8)]
    for attempt, delay in enumerate(delays):
        ceiling = min(4.0, 0.5 * 2**attempt)
        assert ceiling / 2 <= delay <= ceiling
    assert len(set(delays)) == len(delays)  # jittered, not a fixed schedule
    backoff.reset()
    assert backoff.next_delay() <= 0.5
