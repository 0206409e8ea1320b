"""Real reconchess games through our runner, match and tournament commands (short clocks, fast bots)."""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from reconchess import GameHistory

from rbc_bot.cli import main
from rbc_bot.match import MatchSettings, load_match, run_match
from rbc_bot.players import BotSpec
from rbc_bot.replay.pgn import RbcGameBuilder
from rbc_bot.runner import load_records
from rbc_bot.stats import llr_normalised

ROOT = Path(__file__).parent.parent
BOTS = Path(__file__).parent / "bots"
CRASH_BOT = str(BOTS / "crash_bot.py")


def run_cli(*argv: str) -> int:
    return main(list(argv))


def load_summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def points_for_a(record: dict[str, Any]) -> float:
    return 0.5 if record["winner"] is None else float(record["winner"] == record["a_color"])


def test_match_two_games_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "m"
    code = run_cli(
        "match", "random", "attacker", "--games", "2", "--seconds", "30", "--increment", "0", "--seed", "7",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0
    summary = load_summary(out)
    games, totals = summary["games"], summary["totals"]
    assert totals["games"] == 2 and len(games) == 2
    # colour-swapped pair sharing one seed
    assert [(g["white"], g["black"], g["a_color"]) for g in games] == [
        ("random", "attacker", "white"),
        ("attacker", "random", "black"),
    ]
    assert games[0]["seed"] == games[1]["seed"] == 7 and games[0]["pair"] == games[1]["pair"] == 0
    # totals agree with the per-game records
    points = [points_for_a(g) for g in games]
    assert totals["wins"] == points.count(1.0) and totals["losses"] == points.count(0.0)
    assert totals["draws"] == points.count(0.5) and totals["score"] == pytest.approx(sum(points) / 2)
    assert totals["pairs"] == 1 and sum(totals["pentanomial"]) == 1
    assert totals["pentanomial"][int(2 * sum(points))] == 1
    assert totals["elo"] is not None and totals["elo_ci95"] > 0 and totals["elo_model"] == "pentanomial"
    assert totals["crashes"] == 0 and totals["timeouts"] == 0
    for g in games:
        history = GameHistory.from_file(g["replay"])
        winner = history.get_winner_color()
        assert g["winner"] == (None if winner is None else "white" if winner else "black")
        assert history.num_turns() == g["plies"] and g["seconds"] == 30 and g["increment"] == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    assert json.loads((out / "match.json").read_text())["a"]["spec"] == "random"


def read_pgn_games(
    path: Path, builder: type[chess.pgn.GameBuilder] = chess.pgn.GameBuilder
) -> list[chess.pgn.Game]:
    games = []
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle, Visitor=builder)) is not None:
            games.append(game)
    return games


def test_match_writes_every_game_to_one_pgn(tmp_path: Path) -> None:
    """DIR/games.pgn holds every game with its headers; python-chess reads each one back, and with the
    RBC move reader (passes, revised moves and king captures) each replays to its final true board."""
    out = tmp_path / "m"
    code = run_cli(
        "match", "random", "attacker", "--games", "4", "--seconds", "20", "--increment", "2", "--seed", "5",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0
    records = load_summary(out)["games"]
    plain = read_pgn_games(out / "games.pgn")
    assert len(plain) == len(records) == 4
    by_round = {int(g.headers["Round"]): g for g in read_pgn_games(out / "games.pgn", RbcGameBuilder)}
    for record in records:
        game = by_round[record["index"] + 1]
        assert not game.errors, game.errors
        headers = game.headers
        assert (headers["White"], headers["Black"]) == (record["white"], record["black"])
        assert headers["Result"] == {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[record["winner"]]
        assert headers["Seed"] == str(record["seed"]) and headers["TimeControl"] == "20+2"
        assert headers["Termination"] == record["reason"].lower().replace("_", " ")
        history = GameHistory.from_file(record["replay"])
        last = [t for t in history.turns() if history.has_move(t)][-1]
        final = chess.Board(history.truth_fen_after_move(last))
        assert game.end().board().board_fen() == final.board_fen()
        assert len(list(game.mainline_moves())) == len([t for t in history.turns() if history.has_move(t)])


def test_match_goes_on_after_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "m"
    code = run_cli(
        "match", CRASH_BOT, "random", "--games", "4", "--jobs", "2", "--seconds", "30", "--increment", "0",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0
    summary = load_summary(out)
    games = summary["games"]
    assert [g["index"] for g in games] == [0, 1, 2, 3]  # every game finished
    crashed = [g for g in games if g["reason"] == "CRASH"]
    assert crashed, "the crash bot never reached its third turn: pick another seed"
    for g in crashed:
        assert g["crashed"] == g["a_color"] and g["winner"] != g["a_color"]
        assert "deliberate crash on the third turn" in g["traceback"]
    assert summary["totals"]["crashes"] == summary["totals"]["a_crashes"] == len(crashed)
    assert summary["totals"]["b_crashes"] == 0


def replay_files(out: Path) -> list[Path]:
    return sorted(p for p in out.glob("*.json") if p.name not in ("summary.json", "match.json"))


def test_resume_plays_only_the_missing_games(tmp_path: Path) -> None:
    out = tmp_path / "m"
    common = ["--seconds", "30", "--increment", "0", "--seed", "3"]
    assert run_cli("match", "random", "attacker", "--games", "2", *common, "--out", str(out)) == 0
    first = load_summary(out)["games"]
    assert run_cli("match", "--resume", str(out), "--games", "4") == 0
    summary = load_summary(out)
    assert [g["index"] for g in summary["games"]] == [0, 1, 2, 3]
    assert summary["games"][:2] == first  # same records: same replay files, same wall times
    assert summary["match"]["games"] == 4 and summary["totals"]["games"] == 4
    assert len(replay_files(out)) == 4
    assert len((out / "results.jsonl").read_text().splitlines()) == 4
    assert sorted(int(g.headers["Round"]) for g in read_pgn_games(out / "games.pgn")) == [1, 2, 3, 4]
    # a second resume has nothing left to play
    assert run_cli("match", "--resume", str(out)) == 0
    assert load_summary(out)["games"] == summary["games"] and len(replay_files(out)) == 4


def test_interrupted_match_keeps_finished_games_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "m"
    settings = MatchSettings(BotSpec("random"), BotSpec("random"), games=4, seconds=30, increment=0, seed=9)

    def interrupt(record: dict[str, Any], records: list[dict[str, Any]]) -> None:
        raise KeyboardInterrupt  # as Ctrl-C arriving just after the first game

    with pytest.raises(KeyboardInterrupt):
        run_match(settings, out, on_record=interrupt)
    kept = load_summary(out)["games"]
    assert [g["index"] for g in kept] == [0]
    assert replay_files(out) == [Path(kept[0]["replay"])]  # an aborted game leaves no replay behind
    summary = run_match(settings, out, resume=True)
    assert [g["index"] for g in summary["games"]] == [0, 1, 2, 3] and summary["games"][0] == kept[0]
    assert len(replay_files(out)) == 4


def test_killed_match_process_resumes(tmp_path: Path) -> None:
    out = tmp_path / "m"
    command = [sys.executable, str(ROOT / "run_bot.py"), "match", "random", "random", "--games", "40"]
    command += ["--seconds", "30", "--increment", "0", "--out", str(out)]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 2):
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 130
    finished = load_records(results)
    assert 2 <= len(finished) < 40
    settings, _ = load_match(out)
    settings.games = len(finished) + (len(finished) % 2) + 2  # finish the open pair and one more
    summary = run_match(settings, out, resume=True)
    assert [g["index"] for g in summary["games"]] == list(range(settings.games))
    assert summary["games"][: len(finished)] == finished
    assert len(replay_files(out)) == settings.games


def test_bad_specs_fail_before_any_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken_bot.py"
    broken.write_text("import no_such_module_for_rbc_tests\n")
    cases = [
        (["no_such_bot_module", "random"], "no_such_bot_module"),
        ([str(broken), "random"], "no_such_module_for_rbc_tests"),
        (["random", "attacker", "--a-set", "depth=3"], "rbc_bot only"),
        (["random", "attacker", "--games", "3"], "even"),
        (["random", "attacker", "--sprt", "5", "0"], "ELO0 < ELO1"),
    ]
    for n, (argv, message) in enumerate(cases):
        out = tmp_path / f"out{n}"
        assert run_cli("match", *argv, "--seconds", "5", "--out", str(out)) == 2
        assert message in capsys.readouterr().err
        assert not out.exists()  # nothing was started
    assert run_cli("match", "--resume", str(tmp_path / "nothing")) == 2
    assert "no match.json" in capsys.readouterr().err
    assert run_cli("tournament", "random", "no_such_bot_module", "--out", str(tmp_path / "t")) == 2
    assert "no_such_bot_module" in capsys.readouterr().err and not (tmp_path / "t").exists()


def test_sprt_stops_the_match_once_decided(tmp_path: Path) -> None:
    out = tmp_path / "m"
    # Wide error rates give bounds of +-0.41, so a clear result ends the match within a few pairs.
    code = run_cli(
        "match", "attacker", "random", "--games", "40", "--seconds", "30", "--increment", "0", "--seed", "1",
        "--sprt", "0", "100", "--alpha", "0.4", "--beta", "0.4", "--out", str(out),
    )  # fmt: skip
    assert code == 0
    summary = load_summary(out)
    sprt, totals = summary["totals"]["sprt"], summary["totals"]
    assert sprt["lower"] == pytest.approx(math.log(0.4 / 0.6)) and sprt["upper"] == pytest.approx(
        math.log(0.6 / 0.4)
    )
    assert sprt["decision"] in ("H0", "H1") and totals["games"] < 40
    assert sprt["llr"] == pytest.approx(llr_normalised(totals["pentanomial"], 0, 100))
    assert (sprt["llr"] >= sprt["upper"]) == (sprt["decision"] == "H1")


def test_tournament_round_robin(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code = run_cli(
        "tournament", "random", "attacker", CRASH_BOT, "--games-per-pair", "2", "--jobs", "2",
        "--seconds", "30", "--increment", "0", "--out", str(out),
    )  # fmt: skip
    assert code == 0
    summary = load_summary(out)
    assert [b["name"] for b in summary["bots"]] == ["random", "attacker", "crash_bot"]
    assert len(summary["games"]) == 6
    points, games = summary["crosstable"]["points"], summary["crosstable"]["games"]
    for i in range(3):
        for j in range(3):
            if i != j:
                assert games[i][j] == 2 and points[i][j] + points[j][i] == 2
    for k, bot in enumerate(summary["bots"]):
        assert bot["games"] == 4 and bot["points"] == sum(points[k])
        assert bot["elo"] is not None and bot["elo_ci95"] > 0
        wins, losses, draws = bot["wld"]
        assert wins + losses + draws == 4 and wins + draws / 2 == bot["points"]
    assert summary["bots"][2]["crashes"] > 0
    pgn = read_pgn_games(out / "games.pgn")
    assert len(pgn) == 6 and "crash" in {g.headers["Termination"] for g in pgn}
    pairs = {(g["white_bot"], g["black_bot"], g["seed"]) for g in summary["games"]}
    assert len(pairs) == 6 and all((b, w, s) in pairs for w, b, s in pairs)  # colour-swapped, same seed


def test_stop_after_starts_no_game_past_the_limit_and_keeps_the_one_in_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    slow = str(BOTS / "slow_result_bot.py")  # hears each of its first 5 move results for 0.4 s
    args = ["--games", "4", "--seconds", "30", "--increment", "0", "--seed", "5", "--out", str(out)]
    assert run_cli("match", slow, "random", *args, "--stop-after", "-1") == 2
    assert capsys.readouterr().err.strip() == "rbc-bot: error: --stop-after must be >= 0 minutes: -1"
    assert not out.exists(), "nothing is played after a usage error"

    assert run_cli("match", slow, "random", *args, "--stop-after", "0.01") == 0  # 0.6 s
    (record,) = load_records(out / "results.jsonl")
    assert record["index"] == 0 and record["reason"] is not None
    assert record["wall_seconds"] > 0.6, "the game in progress at the limit was finished, not aborted"
    assert replay_files(out) == [Path(record["replay"])]
    said = " ".join(capsys.readouterr().out.split())
    assert "1 of 4 games played" in said and f"match --resume {out}" in said

    assert run_cli("match", "--resume", str(out)) == 0
    assert [r["index"] for r in load_records(out / "results.jsonl")] == [0, 1, 2, 3]
