"""``connect``: what rc-connect does (version check, invitations, a process per game, finish,
error_resign after a crash), plus logging to a file, backoff on outages, and a clear exit.

Stopping: the first SIGINT/SIGTERM unranks and lets running games finish (also during a server
outage: every retry loop watches the stop flag); a second one abandons them at once, killing each
game's process group (the bot and any engine it started). What no retry can fix (a bad URL,
bad credentials, a refused lobby request, a version mismatch) ends the run with one line on stderr.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType

import reconchess

from rbc_bot.server.client import (
    ApiClient,
    AuthError,
    Backoff,
    PermanentError,
    ServerError,
    Stopped,
    TransientError,
    play_remote,
)
from rbc_bot.server.errors import fail

logger = logging.getLogger(__name__)


class Fatal(Exception):
    """The connector cannot go on; the message is one line saying why."""


@dataclass(frozen=True)
class ConnectOptions:
    server_url: str
    username: str
    password: str
    bot: str = "rbc_bot"
    bot_overrides: tuple[str, ...] = ()
    bot_config: str | None = None
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
    The child leads its own process group, so abandoning the game kills whatever the bot started.
    """
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop, games run to the end
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from rbc_bot.logs import configure_logging
    from rbc_bot.players import BotSpec

    configure_logging(options.verbosity, Path(options.log_file) if options.log_file else None)
    client = ApiClient(options.server_url, options.auth, max_backoff=options.max_backoff)
    spec = BotSpec(options.bot, options.bot_overrides, options.bot_config)
    if invitation_id is not None:
        try:
            game_id = client.accept(invitation_id)
        except (ServerError, PermanentError) as exc:
            logger.error("invitation %d could not be accepted: %s", invitation_id, exc)
            return
        logger.info("invitation %d accepted: playing game %d with %s", invitation_id, game_id, spec.name)
    assert game_id is not None
    try:
        _play(options, spec.create(), game_id)
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


def _play(options: ConnectOptions, player: reconchess.Player, game_id: int) -> None:
    winner, reason, history = play_remote(
        options.server_url, game_id, options.auth, player, max_backoff=options.max_backoff
    )
    if options.replay_dir:
        path = Path(options.replay_dir) / f"server_game_{game_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        history.save(str(path))
    mine = history.get_white_player_name() == options.username
    won = "draw" if winner is None else ("won" if mine == winner else "lost")
    logger.info("finished game %d: %s (%s)", game_id, won, reason.name if reason else None)


def kill_hard(process: BaseProcess) -> None:
    """SIGKILL the process's group (it leads one, see ``play_invitation``), else the process alone."""
    if process.pid is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):  # not (yet) a group leader
        os.killpg(process.pid, signal.SIGKILL)
    if process.is_alive():
        process.kill()


class Connector:
    """The lobby loop of one connected bot."""

    def __init__(self, options: ConnectOptions) -> None:
        self.options = options
        self.stopping = threading.Event()
        self.abandoning = False
        self.signals = 0
        self.client = ApiClient(
            options.server_url, options.auth, max_backoff=options.max_backoff, stop=self.stopping
        )
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
            return
        logger.warning("second signal: abandoning %d running game(s)", len(self.processes))
        self.abandoning = True
        for process in list(self.processes.values()):
            kill_hard(process)

    def run(self) -> int:
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            return self._run()
        except AuthError as exc:
            return self._fatal(f"{exc}; check --username and the password (--password-env)")
        except PermanentError as exc:
            return self._fatal(str(exc))
        except ServerError as exc:
            return self._fatal(f"the server refused a lobby request: {exc}")
        except Fatal as exc:
            return self._fatal(str(exc))
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _fatal(self, message: str) -> int:
        """One line on stderr (``rbc-bot: error: ...``) and the same in the log file; exit code 1."""
        record = logger.makeRecord(logger.name, logging.ERROR, __file__, 0, message, (), None)
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.FileHandler):
                handler.handle(record)
        for process in list(self.processes.values()):
            kill_hard(process)
        return fail(message, 1)

    def _connect(self, backoff: Backoff) -> bool:
        """Version check and ranked mode, retried with backoff until it works or we are stopped."""
        while not self.stopping.is_set():
            try:
                version = self.client.server_version(retry=False)
                if version != reconchess.__version__:
                    raise Fatal(
                        f"the server runs reconchess {version}, this client {reconchess.__version__}:"
                        f" run `pip install reconchess=={version}`"
                    )
                self._set_ranked_mode()
                return True
            except TransientError as exc:
                delay = backoff.next_delay()
                logger.warning("%s; retrying in %.1f s", exc, delay)
                self.stopping.wait(delay)
            except Stopped:
                break
        return False

    def _set_ranked_mode(self) -> None:
        if not self.options.ranked:
            self.client.set_ranked(False)
            return
        current = self.client.bot_version()
        if current == 0 or self.options.new_version:
            current = self.client.increment_version()
        self.client.set_ranked(True)
        logger.info("ranked play as %s v%d", self.options.username, current)

    def _run(self) -> int:
        opts = self.options
        logger.info("connecting to %s as %s with bot %s", opts.server_url, opts.username, opts.bot)
        if not self._connect(Backoff(cap=opts.max_backoff)):
            return self._shutdown()
        if opts.invite:
            return self._play_invitations_we_send()
        self._lobby()
        return self._shutdown()

    def _lobby(self) -> None:
        """Poll for invitations and start a game process for each, until stopped."""
        opts = self.options
        backoff = Backoff(cap=opts.max_backoff)
        connected = False
        while not self.stopping.is_set():
            try:
                invitations = self.client.invitations(retry=False)
                if not connected:
                    self.client.set_max_games(opts.max_concurrent_games, retry=False)
                    logger.info("connected to %s (max %d games)", opts.server_url, opts.max_concurrent_games)
                    connected = True
                    backoff.reset()
            except (TransientError, Stopped) as exc:
                if connected:
                    logger.warning("lost the server: %s", exc)
                connected = False
                delay = backoff.next_delay()
                logger.info("reconnecting in %.1f s", delay)
                self.stopping.wait(delay)
                continue
            self._start_games(invitations)
            self.stopping.wait(opts.poll_interval)

    def _start_games(self, invitations: list[int]) -> None:
        self._reap()
        for invitation in invitations:
            if invitation in self.processes:
                continue
            if len(self.processes) >= self.options.max_concurrent_games:
                logger.info("no free game slot for invitation %d yet", invitation)
                break
            logger.info("received invitation %d", invitation)
            self._spawn(invitation, (self.options, invitation), f"rbc-invitation-{invitation}")

    def _spawn(self, key: int, args: tuple[object, ...], name: str) -> None:
        process = self._mp.Process(target=play_invitation, args=args, name=name)
        process.start()
        self.processes[key] = process

    def _play_invitations_we_send(self) -> int:
        """``--invite NAME``: invite NAME to ``invite_games`` games (colours alternate), play them, exit."""
        opts = self.options
        games: list[int] = []
        for index in range(opts.invite_games):
            while len(self.processes) >= opts.max_concurrent_games and not self.stopping.is_set():
                self._reap()
                self.stopping.wait(0.2)
            if self.stopping.is_set():
                break
            color = index % 2 == 0  # white first
            try:
                answer = self.client.post("/api/invitations/", {"opponent": opts.invite, "color": color})
            except Stopped:
                break
            game_id = int(answer["game_id"])
            logger.info(
                "invited %s to game %d (we play %s)", opts.invite, game_id, "white" if color else "black"
            )
            self._spawn(-game_id, (opts, None, game_id), f"rbc-game-{game_id}")  # negative keys: games
            games.append(game_id)
        code = self._shutdown()
        for game_id in games:
            try:
                row = self.client.get(f"/api/games/{game_id}", max_attempts=3)
            except (Stopped, TransientError, ServerError) as exc:
                logger.warning("game %d: no result from the server: %s", game_id, exc)
                continue
            logger.info("game %d: %s", game_id, _describe(row, opts.username))
        return code

    def _reap(self) -> None:
        for key, process in list(self.processes.items()):
            if not process.is_alive():
                process.join()
                del self.processes[key]

    def _shutdown(self) -> int:
        """Unrank, then wait for the running games (or, after a second signal, kill them); exit code."""
        try:
            self.client.set_ranked(False, max_attempts=3)
            logger.info("unranked on %s", self.options.server_url)
        except (TransientError, ServerError, Stopped) as exc:
            logger.warning("could not unrank before leaving: %s", exc)
        while self.processes and not self.abandoning:
            self._reap()
            time.sleep(0.2)
        if self.abandoning:
            for process in self.processes.values():
                kill_hard(process)
                process.join(5)
            logger.warning("abandoned %d game(s); they will be lost on time", len(self.processes))
            return 1
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
