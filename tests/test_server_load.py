"""Load: 8 games at once on one server process; every result and history must come out right."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import chess
import reconchess
import requests
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot
from reconchess.history import GameHistoryDecoder
from server_helpers import ServerProcess, accept_all, invite, replay_through_local_game

GAMES = 8


def test_eight_games_at_once_complete_with_correct_results(tmp_path: Path) -> None:
    users = [(f"bot{i}", f"pw{i}") for i in range(2 * GAMES)]
    extra = ["--full-turn-limit", "6", "--seconds", "120", "--increment", "0"]
    with ServerProcess(tmp_path / "load.sqlite3", users=users, extra=extra) as server:
        url = server.url
        pairs = [(users[2 * i], users[2 * i + 1]) for i in range(GAMES)]
        game_ids = []
        for white, black in pairs:
            game_ids.append(invite(url, white, black[0], inviter_color=chess.WHITE))
            assert accept_all(url, black) == [game_ids[-1]]
        results: dict[tuple[int, str], Any] = {}

        def play(game_id: int, auth: tuple[str, str], player: reconchess.Player) -> None:
            try:
                results[(game_id, auth[0])] = reconchess.play_remote_game(url, game_id, auth, player)
            except Exception as exc:
                results[(game_id, auth[0])] = exc

        threads = []
        for game_id, (white, black) in zip(game_ids, pairs, strict=True):
            threads.append(threading.Thread(target=play, args=(game_id, white, AttackerBot())))
            threads.append(threading.Thread(target=play, args=(game_id, black, RandomBot())))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(180)
        assert not any(t.is_alive() for t in threads)

        rows = {
            g["id"]: g for g in requests.get(f"{url}/api/games/", auth=users[0], timeout=10).json()["games"]
        }
        for game_id, (white, black) in zip(game_ids, pairs, strict=True):
            seen_by_white, seen_by_black = results[(game_id, white[0])], results[(game_id, black[0])]
            assert not isinstance(seen_by_white, Exception), seen_by_white
            assert not isinstance(seen_by_black, Exception), seen_by_black
            assert seen_by_white[:2] == seen_by_black[:2]
            text = requests.get(f"{url}/api/games/{game_id}/game_history", auth=white, timeout=10).text
            history = json.loads(text, cls=GameHistoryDecoder)["game_history"]
            assert seen_by_white[2] == seen_by_black[2] == history
            assert history.get_white_player_name() == white[0]
            row = rows[game_id]
            assert row["status"] == "finished"
            assert (row["winner_color"], row["win_reason"]) == (seen_by_white[0], seen_by_white[1].name)
            replay_through_local_game(history)
