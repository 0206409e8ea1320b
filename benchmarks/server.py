"""Local server speed: requests per second on loopback, and the latency HTTP polling adds per ply.

Why: the stock client polls ``game_status`` every 0.5 s and sends ~9 requests per turn, so the
server must answer many small requests cheaply, and a game on a server is slower than a local one.
This measures both against the real server process (``python run_bot.py serve``).

    python benchmarks/server.py                 # about 40 s
    python benchmarks/server.py --json          # the last line is one JSON object

Throughput: ``--threads`` client threads, each with its own ``requests.Session`` (keep-alive), call
GET ``game_status`` of a started game for ``--seconds`` s; reported per thread count.
Latency: the same seeded game (both sides pick seeded random moves, so the games are identical)
is played once with ``reconchess.play_local_game`` and once over HTTP with the stock
``play_remote_game``; (remote - local) / plies is what the server round-trips and polling add.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import chess
import reconchess
import requests
from reconchess import LocalGame

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from bots.pass_bot import PassBot
from server_helpers import ServerProcess, accept_all, invite, play_game


class SeededBot(PassBot):
    """No sense, a seeded random move: the same seed plays the same game anywhere."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        return self.rng.choice(sorted(move_actions, key=chess.Move.uci)) if move_actions else None


def hammer(url: str, path: str, auth: tuple[str, str], threads: int, seconds: float) -> float:
    """Requests per second that ``threads`` keep-alive sessions get through in ``seconds``."""
    counts = [0] * threads
    stop = threading.Event()

    def worker(i: int) -> None:
        session = requests.Session()
        session.auth = auth
        while not stop.is_set():
            response = session.get(url + path, timeout=10)
            if response.status_code != 200:
                raise RuntimeError(f"{path}: HTTP {response.status_code}")
            counts[i] += 1

    pool = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    started = time.perf_counter()
    for thread in pool:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in pool:
        thread.join()
    return sum(counts) / (time.perf_counter() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4, 8], help="client thread counts")
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument("--turns", type=int, default=15, help="full turns of the latency game")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print a JSON object as the last line")
    args = parser.parse_args()

    users = [("w", "pw-w"), ("b", "pw-b")]
    extra = ["--full-turn-limit", str(args.turns), "--seconds", "600", "--increment", "0"]
    out: dict[str, Any] = {"requests_per_second": {}}
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(Path(tmp) / "bench.sqlite3", users, extra) as server,
    ):
        url = server.url
        game_id = invite(url, users[0], users[1][0], inviter_color=chess.WHITE)
        accept_all(url, users[1])
        for user in users:
            requests.post(
                f"{url}/api/games/{game_id}/ready", data="{}", auth=user, timeout=10
            ).raise_for_status()
        for threads in args.threads:
            rate = hammer(url, f"/api/games/{game_id}/game_status", users[0], threads, args.seconds)
            out["requests_per_second"][str(threads)] = round(rate, 1)
            print(f"GET game_status, {threads} client thread(s): {rate:8.1f} requests/s")

        started = time.perf_counter()
        local_game = LocalGame(seconds_per_player=600, seconds_increment=0, full_turn_limit=args.turns)
        local = reconchess.play_local_game(SeededBot(args.seed), SeededBot(args.seed + 1), game=local_game)
        local_seconds = time.perf_counter() - started

        game_id = invite(url, users[0], users[1][0], inviter_color=chess.WHITE)
        accept_all(url, users[1])
        started = time.perf_counter()
        results = play_game(
            url, game_id, (users[0], SeededBot(args.seed)), (users[1], SeededBot(args.seed + 1))
        )
        remote_seconds = time.perf_counter() - started
        remote = results[users[0][0]]
        if isinstance(remote, Exception):
            raise remote
        history = remote[2]
        same = history._taken_moves == local[2]._taken_moves and remote[:2] == local[:2]
        plies = sum(1 for _ in history.turns())
        per_ply = (remote_seconds - local_seconds) / plies
        print(f"same game local and remote: {same}; {plies} plies")
        print(
            f"local {local_seconds:.2f} s, remote {remote_seconds:.2f} s:"
            f" HTTP + polling add {per_ply:.3f} s/ply"
        )
        out.update(
            plies=plies,
            same_game=same,
            local_seconds=round(local_seconds, 3),
            remote_seconds=round(remote_seconds, 3),
            added_seconds_per_ply=round(per_ply, 4),
        )
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
