"""``connect``: what rc-connect does (version check, invitations, a process per game, finish,
error_resign after a crash), plus logging to a file, backoff on outages, a clear exit on 401 and
a clean shutdown on SIGINT/SIGTERM (unrank, let running games finish, exit).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType

import reconchess

from rbc_bot.server.client import ApiClient, AuthError, Backoff, ServerError, TransientError, play_remote

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectOptions:
    server_url: str
    username: str
    password: str
    bot: str = "rbc_bot"
    ranked: bool = False
    new_version: bool = False
    max_concurrent_games: int = 4
    poll_interval: float = 5.0
    max_backoff: float = 60.0
    log_file: str | None = None
    replay_dir: str | None = "replays"
    verbosity: int = 1
    invite: str | None = None
    invite_games: int = 1

    @property
    def auth(self) -> tuple[str, str]:
        return self.username, self.password


def play_invitation(options: ConnectOptions, invitation_id: int | None, game_id: int | None = None) -> None:
    """Child process: accept, play, save the replay; error_resign on a crash; always finish.

    With ``game_id`` (a game we invited someone to) there is no invitation to accept or finish.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop, games run to the end
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from rbc_bot.logs import configure_logging
    from rbc_bot.players import BotSpec

    configure_logging(options.verbosity, Path(options.log_file) if options.log_file else None)
    client = ApiClient(options.server_url, options.auth, max_backoff=options.max_backoff)
    if invitation_id is not None:
        try:
            game_id = client.accept(invitation_id)
        except (ServerError, AuthError) as exc:
            logger.error("invitation %d could not be accepted: %s", invitation_id, exc)
            return
        logger.info("invitation %d accepted: playing game %d with %s", invitation_id, game_id, options.bot)
    assert game_id is not None
    try:
        player = BotSpec(options.bot).create()
        winner, reason, history = play_remote(
            options.server_url, game_id, options.auth, player, max_backoff=options.max_backoff
        )
        if options.replay_dir:
            path = Path(options.replay_dir) / f"server_game_{game_id}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            history.save(str(path))
        won = (
            "draw"
            if winner is None
            else ("won" if _my_color(history, options.username) == winner else "lost")
        )
        logger.info("finished game %d: %s (%s)", game_id, won, reason.name if reason else None)
    except Exception:
        logger.exception("game %d crashed; sending error_resign", game_id)
        try:
            client.error_resign(game_id)
        except Exception:
            logger.exception("error_resign for game %d failed", game_id)
    finally:
        if invitation_id is not None:
            try:
                client.finish(invitation_id)
            except Exception:
                logger.exception("finishing invitation %d failed", invitation_id)


def _my_color(history: reconchess.GameHistory, username: str) -> bool:
    return bool(history.get_white_player_name() == username)


class Connector:
    """The lobby loop of one connected bot."""

    def __init__(self, options: ConnectOptions) -> None:
        self.options = options
        self.stopping = threading.Event()
        self.signals = 0
        self.client = ApiClient(options.server_url, options.auth, max_backoff=options.max_backoff)
        self.processes: dict[int, BaseProcess] = {}
        self._mp = multiprocessing.get_context("spawn")  # no fork of a threaded process

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.signals += 1
        if self.signals == 1:
            logger.warning(
                "%s received: unranking, waiting for %d game(s) to finish, then exiting"
                " (signal again to abandon them)",
                signal.Signals(signum).name,
                len(self.processes),
            )
            self.stopping.set()
        else:
            logger.warning("second signal: abandoning %d running game(s)", len(self.processes))
            for process in self.processes.values():
                process.terminate()

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            return self._run()
        except AuthError as exc:
            logger.error("%s. Check --username and the password (--password-env).", exc)
            return 1
        except ServerError as exc:
            logger.error("the server refused a lobby request: %s", exc)
            return 1
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _connect(self, backoff: Backoff) -> bool:
        """Version check and ranked mode, retried with backoff until it works or we are stopped."""
        while not self.stopping.is_set():
            try:
                version = self.client.server_version(retry=False)
                if version != reconchess.__version__:
                    logger.error(
                        "server runs reconchess %s, this client %s: run `pip install reconchess==%s`",
                        version,
                        reconchess.__version__,
                        version,
                    )
                    return False
                if self.options.ranked:
                    current = self.client.bot_version()
                    if current == 0 or self.options.new_version:
                        current = self.client.increment_version()
                    self.client.set_ranked(True)
                    logger.info("ranked play as %s v%d", self.options.username, current)
                else:
                    self.client.set_ranked(False)
                return True
            except TransientError as exc:
                delay = backoff.next_delay()
                logger.warning("%s; retrying in %.1f s", exc, delay)
                self.stopping.wait(delay)
        return False

    def _run(self) -> int:
        opts = self.options
        backoff = Backoff(cap=opts.max_backoff)
        logger.info("connecting to %s as %s with bot %s", opts.server_url, opts.username, opts.bot)
        if not self._connect(backoff):
            return 0 if self.stopping.is_set() else 1
        if opts.invite:
            return self._play_invitations_we_send()
        connected = False
        while not self.stopping.is_set():
            try:
                invitations = self.client.invitations(retry=False)
                if not connected:
                    self.client.set_max_games(opts.max_concurrent_games, retry=False)
                    logger.info("connected to %s (max %d games)", opts.server_url, opts.max_concurrent_games)
                    connected = True
                    backoff.reset()
            except TransientError as exc:
                if connected:
                    logger.warning("lost the server: %s", exc)
                connected = False
                delay = backoff.next_delay()
                logger.info("reconnecting in %.1f s", delay)
                self.stopping.wait(delay)
                continue
            self._reap()
            for invitation in invitations:
                if invitation in self.processes:
                    continue
                if len(self.processes) >= opts.max_concurrent_games:
                    logger.info("no free game slot for invitation %d yet", invitation)
                    break
                logger.info("received invitation %d", invitation)
                process = self._mp.Process(
                    target=play_invitation, args=(opts, invitation), name=f"rbc-invitation-{invitation}"
                )
                process.start()
                self.processes[invitation] = process
            self.stopping.wait(opts.poll_interval)
        return self._shutdown()

    def _play_invitations_we_send(self) -> int:
        """``--invite NAME``: invite NAME to ``invite_games`` games (colours alternate), play them, exit."""
        opts = self.options
        assert opts.invite is not None
        games: list[int] = []
        for index in range(opts.invite_games):
            while len(self.processes) >= opts.max_concurrent_games and not self.stopping.is_set():
                self._reap()
                self.stopping.wait(0.2)
            if self.stopping.is_set():
                break
            color = index % 2 == 0  # white first
            game_id = int(
                self.client.post("/api/invitations/", {"opponent": opts.invite, "color": color})["game_id"]
            )
            logger.info(
                "invited %s to game %d (we play %s)", opts.invite, game_id, "white" if color else "black"
            )
            process = self._mp.Process(
                target=play_invitation, args=(opts, None, game_id), name=f"rbc-game-{game_id}"
            )
            process.start()
            self.processes[-game_id] = process  # negative keys: games, not invitations
            games.append(game_id)
        self._shutdown()
        for game_id in games:
            row = self.client.get(f"/api/games/{game_id}")
            logger.info("game %d: %s", game_id, _describe(row, opts.username))
        return 0

    def _reap(self) -> None:
        for invitation, process in list(self.processes.items()):
            if not process.is_alive():
                process.join()
                del self.processes[invitation]

    def _shutdown(self) -> int:
        try:
            self.client.set_ranked(False, max_attempts=3)
            logger.info("unranked on %s", self.options.server_url)
        except (TransientError, ServerError) as exc:
            logger.warning("could not unrank before leaving: %s", exc)
        while self.processes:
            self._reap()
            time.sleep(0.2)
        logger.info("all games finished; goodbye")
        return 0


def _describe(row: dict[str, object], username: str) -> str:
    """One line for a game summary from ``GET /api/games/<id>`` (our server's extension)."""
    winner = row.get("winner_color")
    if row.get("status") != "finished":
        return str(row.get("status"))
    if winner is None:
        return f"draw ({row.get('win_reason')})"
    mine = (row.get("white") == username) == winner
    return f"{'won' if mine else 'lost'} ({row.get('win_reason')})"
