"""The scripts behind the strength records: benchmarks/turn_logs.py (clock figures, overrun turns,
senses, collapses, beliefs), benchmarks/openings.py (our first moves and first queen move per game, read
from the replays), benchmarks/raids.py (our king captures and quiet checks on the true board) and
benchmarks/decisions.py (two configurations' moves judged on the true board). benchmarks/paired.py has
tests/test_paired_script.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from record_helpers import BENCHMARKS, KEPT, ROOT, write_run

from rbc_bot.replay.load import load_game
from rbc_bot.replay.resim import resimulate

sys.path.insert(0, str(BENCHMARKS))
import decisions
import screening
import turn_logs


def test_turn_logs_reads_a_kept_record() -> None:
    """Session 7's main run: 12 games, 9-3; the kept turn logs are the three losses' (83 turns), none
    past 1.2x its budget (the worst 0.88x)."""
    line = turn_logs.summarise(KEPT)
    assert "12 games 9-3-0" in line
    assert "83 turns" in line
    assert "0 past 1.2x their budget (worst 0.88x, median" in line


def test_turn_logs_counts_a_turn_past_its_budget(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", [(1, "white", "black")])
    log = run / "game.json.turns.jsonl"
    turns = [{"budget": 10.0, "seconds_turn": 9.0, "seconds_left": 100.0},
             {"budget": 10.0, "seconds_turn": 25.0, "seconds_left": 80.0, "passive_boards": 1}]  # fmt: skip
    log.write_text("".join(json.dumps(t) + "\n" for t in turns))
    record = {"seed": 1, "a_color": "white", "winner": "black", "seconds": 120.0, "increment": 5.0,
              "plies": 4, "seconds_left": {"white": 80.0, "black": 50.0},
              "turn_logs": {"white": str(log)}}  # fmt: skip
    (run / "results.jsonl").write_text(json.dumps(record) + "\n")
    line = turn_logs.summarise(run)
    assert (
        "1 games 0-1-0 | 2 turns" in line
        and "1 past 1.2x their budget (worst 2.50x, median 170% used)" in line
    )
    assert "least left 80.0 s" in line
    assert "| 1 moves chosen on the passive watch's boards |" in line


def test_turn_logs_reports_a_trial_arm_by_arm() -> None:
    """Session 42's trial (clock.spend_target=0.9): each arm is a configuration of its own, so the
    script reports them apart, control first, with the W-L-D of the arm's own games (control 12-5 in
    17, candidate 14-4 in 18), and says so in one line for a folder that holds no games."""
    trial = BENCHMARKS / "strength" / "2026-12-06-s42" / "t42-spend"
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "turn_logs.py"), str(trial), "--belief"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = run.stdout.splitlines()
    assert [line.split(" | ")[0] for line in lines[::2]] == [
        f"{trial} [control]: 17 games 12-5-0",
        f"{trial} [candidate]: 18 games 14-4-0",
    ]
    assert lines[1] == "  largest belief after a sense: 100-999 5-2-0; 1000-4999 3-2-0; 5000+ 4-1-0"
    assert "median clock unused 36%" in lines[0] and "median clock unused 20%" in lines[2]


def test_turn_logs_refuses_a_folder_without_games(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCHMARKS / "turn_logs.py"), str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 1
    assert run.stderr == f"turn_logs.py: error: not a match or trial folder (no results.jsonl): {tmp_path}\n"


def test_print_arm_reports_prints_a_report_per_arm_and_refuses_a_folder_without_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ad hoc trial scripts' command line: one line per arm, control first, from the report given;
    a folder that holds no games stops it with the same one line as turn_logs.py."""
    trial = BENCHMARKS / "strength" / "2026-12-06-s42" / "t42-spend"

    def games(run: Path, arm: str | None) -> str:
        return f"{arm}: {len(turn_logs.results(run, arm))} games"

    monkeypatch.setattr(sys, "argv", ["probe.py", str(trial)])
    turn_logs.print_arm_reports("test", games)
    assert capsys.readouterr().out == "control: 17 games\ncandidate: 18 games\n"
    monkeypatch.setattr(sys, "argv", ["probe.py", str(trial), str(tmp_path)])
    with pytest.raises(SystemExit) as stop:
        turn_logs.print_arm_reports("test", games)
    assert stop.value.code == f"probe.py: error: not a match or trial folder (no results.jsonl): {tmp_path}"
    assert capsys.readouterr().out == ""


def test_turn_logs_senses_counts_each_rule_and_the_boards_it_kept(tmp_path: Path) -> None:
    """Two danger senses keeping 1 of 4 and 3 of 4 boards (median 50 %), one decision sense on 200
    boards keeping 20; the first turn's single board tells nothing apart and is left out."""
    run = write_run(tmp_path / "r", [(1, "white", "white")])
    sizes = [(1, 1, "window"), (4, 1, "danger"), (4, 3, "danger"), (200, 20, "decision")]
    log = run / "game.json.turns.jsonl"
    log.write_text("".join(
        json.dumps({"belief": {"after_opponent": [b], "after_sense": [a]}, "sense_rule": rule}) + "\n"
        for b, a, rule in sizes
    ))  # fmt: skip
    (run / "results.jsonl").write_text(json.dumps({"a_color": "white", "turn_logs": {"white": str(log)}}))
    assert turn_logs.senses(run) == "  senses: danger 2 turns, kept 50.0%; decision 1 turns, kept 10.0%"
    assert turn_logs.senses(run, min_believed=100) == "  senses: decision 1 turns, kept 10.0%"
    assert turn_logs.senses(run, max_believed=3) == "  senses: no turn with more than one board"


def turn_row(turn: int, mean: float | None, boards: int = 10, reason: str = "best-worst") -> dict:
    """One turn-log row: the chosen move's mean over ``boards`` believed boards (None: not logged)."""
    candidates = [] if mean is None else [{"move": "e2e4", "mean": mean}, {"move": "d2d4", "mean": 999.0}]
    belief = {"after_opponent": [boards], "after_sense": [boards]}
    return {
        "turn": turn,
        "belief": belief,
        "move_reason": reason,
        "chosen_move": "e2e4",
        "candidates": candidates,
    }


def test_turn_logs_collapse_spans_and_early_raids(tmp_path: Path) -> None:
    """A win by a raid at once on 5 boards (a hit); a loss whose mean fell to -400 from turn 3 after a raid
    that missed (span 0-9); a loss with only two bad turns in a row (never collapsed); a game without
    our turn log, counted apart."""
    run = write_run(tmp_path / "r", [])
    bad_from_3 = [turn_row(t, -400.0) for t in (3, 4, 5)]
    two_bad = [turn_row(12, -400.0), turn_row(13, -400.0), turn_row(14, 100.0), turn_row(15, -900.0)]
    games = {
        "hit": ("white", "white", [turn_row(0, 20.0), turn_row(1, None, 5, "king-capture")]),
        "miss": ("black", "white", [turn_row(2, None, 20, "king-capture"), *bad_from_3]),
        "two": ("white", "black", two_bad),
    }
    records = []
    for name, (ours, winner, turns) in games.items():
        log = run / f"{name}.json.turns.jsonl"
        log.write_text("".join(json.dumps(t) + "\n" for t in turns))
        records.append({"a_color": ours, "winner": winner, "turn_logs": {ours: str(log)}})
    records.append({"a_color": "white", "winner": "black", "turn_logs": {}})
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    line = turn_logs.collapses(run)
    assert "by turn: 0-9: 1 games 0 pts; never: 2 games 1 pts |" in line
    assert "early raids (first 12 turns, > 1 board): 2 games, 1 hit at once, 1 pts | 1 games without" in line


def test_turn_logs_beliefs_bands_games_by_their_largest_belief(tmp_path: Path) -> None:
    """A win that never held more than 99 boards after a sense, a loss that once held 1,000 (though it
    began the turn with more), a draw and a loss that held 5,000 and more; a game without our log left out."""
    run = write_run(tmp_path / "r", [])
    games = {
        "small": ("white", "white", [(400, 99), (99, 3)]),
        "thousand": ("black", "white", [(9_000, 1_000), (1_000, 10)]),
        "drawn": ("white", None, [(30_000, 20_000)]),
        "huge": ("black", "white", [(6_000, 5_000)]),
    }
    records = []
    for name, (ours, winner, sizes) in games.items():
        log = run / f"{name}.json.turns.jsonl"
        rows = [{"belief": {"after_opponent": [b], "after_sense": [a]}} for b, a in sizes]
        log.write_text("".join(json.dumps(row) + "\n" for row in rows))
        records.append({"a_color": ours, "winner": winner, "turn_logs": {ours: str(log)}})
    records.append({"a_color": "white", "winner": "black", "turn_logs": {}})
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert (
        turn_logs.beliefs(run) == "  largest belief after a sense: <100 1-0-0; 1000-4999 0-1-0; 5000+ 0-1-1"
    )


def test_turn_logs_scored_bands_games_by_the_share_of_boards_their_moves_scored(tmp_path: Path) -> None:
    """A win whose moves scored 10 of 400 boards (a fixed cost that read 20 ms at first, 0.3 ms at the
    end), a loss that scored 300 of the 400 a move can take of 500, and a draw with only two moves on
    20+ boards (a third on 19 and a king capture do not count): left out of the bands."""
    run = write_run(tmp_path / "r", [])

    def row(believed: int, scored: int, cost: float | None = None, reason: str = "best-worst") -> dict:
        return {"belief": {"after_sense": [believed]}, "boards_scored": scored, "move_reason": reason,
                "fixed_cost_ms": cost}  # fmt: skip

    games = {
        "stuck": ("white", "white", [row(400, 10, 20.0), row(400, 10, 5.0), row(400, 10, 0.3)]),
        "full": ("black", "white", [row(500, 300), row(500, 300), row(500, 300)]),
        "short": ("white", None, [row(30, 30), row(30, 30), row(19, 1), row(30, 1, reason="king-capture")]),
    }
    records = []
    for name, (ours, winner, turns) in games.items():
        log = run / f"{name}.json.turns.jsonl"
        log.write_text("".join(json.dumps(t) + "\n" for t in turns))
        records.append({"a_color": ours, "winner": winner, "turn_logs": {ours: str(log)}})
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    line = turn_logs.scored(run)
    assert "20+ boards): under half 1-0-0; half or more 0-1-0 |" in line
    assert (
        "fixed cost per search in 1 games: first turn median 20.00 ms (largest 20.00), last turn median 0.30"
        in line
    )


S15_TOLERANCE = ROOT / "benchmarks" / "strength" / "2026-12-02-s15" / "dtol01"  # every game's replay and log


def test_raids_judges_our_king_captures_and_quiet_checks_on_the_true_board(tmp_path: Path) -> None:
    """Three kept games against StrangeFish (seeds 1000-1002 as White): at turn 4 of the first the queen's
    raid a4e8 on 22 boards stopped on d7 and was taken there (9 pawns); the third ended at turn 4 with the
    bishop's raid b5e8 on 18 boards; the second at turn 16 with the queen's h5e8 on 2 boards. The miss
    came after a danger sense, the hits after a decision sense and a king hunt. Of the five quiet checks,
    three came in level positions by our mean and two when we stood well."""
    run = tmp_path / "run"
    run.mkdir()
    records = [json.loads(line) for line in (S15_TOLERANCE / "results.jsonl").read_text().splitlines()]
    chosen = [r for r in records if r["seed"] in (1000, 1001, 1002) and r["a_color"] == "white"]
    for record in chosen:
        for name in (record["replay"], record["turn_logs"]["white"]):
            (run / Path(name).name).write_bytes((S15_TOLERANCE / Path(name).name).read_bytes())
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "raids.py"), str(run)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "3 games with replay and turn log; king captures on one believed board: 0",
        "raids on more than one believed board, turns < 12: 1 hit of 2 (50%), by our queen 0 of 1 (0%); "
        "the replies won 9 pawns on the raid squares",
        "raids on more than one believed board, turns >= 12: 1 hit of 1 (100%), by our queen 1 of 1 (100%); "
        "the replies won 0 pawns on the raid squares",
        "raids that hit, by the rule that chose that turn's sense: danger 0 of 1 (0%); decision 1 of 1 "
        "(100%); king-hunt 1 of 1 (100%)",
        "quiet checks: 5; the reply left the king capturable after 2 (40%), taken at once 2",
        "quiet checks by our mean before them (+-300 cp): behind 0: left 0, taken 0; level 3: left 1, "
        "taken 1 (33%); ahead 2: left 1, taken 1 (50%)",
    ]


def test_raids_on_a_folder_without_replays_is_one_line_on_stderr(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", [(1, "white", "black")])
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "raids.py"), str(run)], capture_output=True, text=True
    )
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"raids.py: error: no game with its replay and our turn log in {run}"
    ]


# benchmarks/decisions.py: positions re-simulated from a kept game, both configurations judged on them.
DECISIONS = ROOT / "benchmarks" / "decisions.py"
KEPT_GAME = KEPT / "losses" / "rbc_bot-strangefish_bot-s1007-2026_12_01-17_54_13.json"


def test_extract_keeps_every_uncertain_turn_with_our_pieces_as_on_the_true_board(tmp_path: Path) -> None:
    positions = decisions.positions_of(KEPT_GAME, boards=50, seed=0)
    side = resimulate(load_game(KEPT_GAME).history, chess.WHITE)
    uncertain = [t.turn + 1 for t in side.turns if t.size_after_sense >= 2 and t.size_after_move is not None]
    assert [p.turn for p in positions] == uncertain and len(positions) >= 5
    log = [json.loads(line) for line in KEPT_GAME.with_name(KEPT_GAME.name + ".turns.jsonl").open()]
    budgets = {row["turn"]: row["budget"] - row["seconds_sense"] for row in log}
    for position in positions:
        assert 2 <= len(position.boards) <= 50 and len(position.boards) == min(50, position.believed)
        assert position.seconds == max(0.1, budgets[position.turn])
        ours = position.truth.occupied_co[position.truth.turn]
        assert all(board.occupied_co[board.turn] == ours and board.turn == position.truth.turn
                   for board in position.boards)  # fmt: skip


def test_two_equal_configurations_choose_alike_and_the_summary_says_so(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl.gz"
    extract = [
        sys.executable,
        str(DECISIONS),
        "extract",
        str(KEPT_GAME),
        "--out",
        str(suite),
        "--boards",
        "12",
    ]
    extracted = subprocess.run(extract, capture_output=True, text=True, check=True)
    assert extracted.stdout.endswith(f"positions written to {suite}\n")
    same = ["engine.nodes=300", "engine.workers=1", "engine.deterministic=true", "move.max_candidates=4"]
    flags = [f"--{side}-set={s}" for side in ("base", "candidate") for s in same]
    done = subprocess.run(
        [sys.executable, str(DECISIONS), "run", str(suite), "--sample", "3", "--judge-nodes", "2000",
         "--seconds", "5", "--out", str(tmp_path / "rows.jsonl"), *flags],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(
        r["base"] == r["candidate"] and r["base_loss"] == r["candidate_loss"] for r in rows
    )
    assert all(r["seconds"] == r["candidate_seconds"] == 5 for r in rows)
    assert "candidate - base +0.00" in done.stdout and "same loss on 3" in done.stdout


def test_losses_are_expected_score_on_the_true_board() -> None:
    judged = screening.BoardJudgement
    assert screening.expected_loss(judged(None, 0.0, None, 0.0, False, False)) == 0.0
    assert screening.expected_loss(judged(None, 400.0, None, 0.0, False, False)) == 10 / 11 - 0.5
    assert screening.expected_loss(judged(None, 0.0, None, -20_000.0, True, False)) > 0.49
    # On the measured curve 50 cp near level costs a fifth of what the logistic says, a queen more.
    small, queen = judged(None, 50.0, None, 0.0, False, False), judged(None, 0.0, None, -900.0, False, False)
    assert screening.expected_loss(small, "measured") == pytest.approx(0.08 * 50 / 300)
    assert screening.expected_loss(small, "measured") < screening.expected_loss(small) / 5
    assert screening.expected_loss(queen, "measured") > screening.expected_loss(queen) + 0.05
    lines = screening.summary([(0.1, 0.0), (0.0, 0.0), (0.0, 0.2)])
    assert lines[0].startswith(
        "3 positions: loss per 100 decisions base 3.33, candidate 6.67; candidate - base +3.33"
    )
    assert lines[1] == "candidate lost less on 1, more on 1 (sign test p = 1.00); same loss on 1"


BAD_RUNS = [([], "none.jsonl.gz"), (["--candidate-time", "0"], "--candidate-time")]


@pytest.mark.parametrize(("extra", "says"), BAD_RUNS)
def test_bad_run_input_is_one_line_on_stderr(tmp_path: Path, extra: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, str(DECISIONS), "run", str(tmp_path / "none.jsonl.gz"), *extra],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert says in done.stderr
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("decisions.py: error: ") and done.stderr.count("\n") == 1


def test_openings_reads_our_moves_and_first_queen_move_from_the_replays() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "openings.py"), str(KEPT), "--moves", "3", "--by", "9"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    game = next(line for line in lines if line.startswith("1007 white"))
    history = load_game(next((KEPT / "losses").glob("rbc_bot-strangefish_bot-s1007-*.json"))).history
    ours = [history.taken_move(t) for t in history.turns(chess.WHITE)]
    assert game.split()[3:6] == [m.uci() if m else "--" for m in ours[:3]]
    turn = int(game.split()[-1])
    queen = ours[turn]
    assert queen is not None and game.split()[-4] == queen.uci()
    truth = [history.truth_board_before_move(t) for t in history.turns(chess.WHITE)]
    assert truth[turn].piece_type_at(queen.from_square) == chess.QUEEN
    earlier = zip(ours[:turn], truth[:turn], strict=True)
    assert not any(m and b.piece_type_at(m.from_square) == chess.QUEEN for m, b in earlier)
    # Kept records hold only the losses' replays: the three losses are counted, the rest said to be missing.
    assert "queen moved by turn 9: 1 games, 0.0 points" in done.stdout  # 1007 White's queen moved at turn 9
    assert "the others: 2 games, 0.0 points (0%)" in done.stdout
    assert lines[-1].startswith("left out: 9 recorded games without their replay")


def test_openings_on_a_folder_without_replays_is_one_line_on_stderr(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", [(1, "white", "white")])
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "openings.py"), str(run)], capture_output=True, text=True
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "no replays" in done.stderr


def script_help(*args: str) -> subprocess.CompletedProcess[str]:
    env_path = f"{ROOT}:{ROOT / 'benchmarks'}"
    command = [sys.executable, *args, "--help"]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": env_path})


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "benchmarks").glob("*.py")))
def test_every_benchmark_script_prints_its_help(script: str) -> None:
    """``--help`` of each script and each of its subcommands prints a usage: a help text argparse
    cannot format (a bare "%" in it) is a traceback where a user asked how to run the script."""
    top = script_help(f"benchmarks/{script}")
    if "usage:" not in top.stdout:  # a module of helpers, not a script
        assert top.returncode == 0 and "Traceback" not in top.stderr, top.stderr
        return
    assert top.returncode == 0, top.stderr
    subcommands = re.search(r"\{([\w,-]+)\}", top.stdout.split("\n\n")[0])
    for sub in subcommands.group(1).split(",") if subcommands else []:
        shown = script_help(f"benchmarks/{script}", sub)
        assert shown.returncode == 0 and shown.stdout.startswith("usage:"), (sub, shown.stderr)
