"""benchmarks/turn_screen.py: turns before the sense re-simulated from a kept game, our bot resumed on
them (sense, the truth's sense result, move) with real Stockfish, and its bad input."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.belief import encode
from rbc_bot.replay.load import load_game
from rbc_bot.replay.resim import resimulate

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "turn_screen.py"
KEPT_GAME = (
    ROOT
    / "benchmarks/strength/2026-12-01-s7/base/losses/rbc_bot-strangefish_bot-s1007-2026_12_01-17_54_13.json"
)
sys.path.insert(0, str(SCRIPT.parent))
import screening  # noqa: E402
import turn_screen  # noqa: E402


def log_rows(game: Path) -> dict[int, dict]:
    lines = game.with_name(game.name + ".turns.jsonl").read_text().splitlines()
    return {row["turn"]: row for row in map(json.loads, lines)}


def test_positions_hold_the_belief_before_the_sense_with_the_truth_among_it() -> None:
    positions = turn_screen.positions_of(KEPT_GAME, boards=30, seed=0)
    side = resimulate(load_game(KEPT_GAME).history, chess.WHITE)
    uncertain = [t.turn + 1 for t in side.turns if t.size_after_opponent >= 2]
    assert [p.turn for p in positions] == uncertain and len(positions) >= 5
    log = log_rows(KEPT_GAME)
    for position in positions:
        assert len(position.rows) == min(30, position.believed) >= 2
        assert (position.rows == encode(position.truth)).all(axis=1).any()
        assert position.seconds_left == log[position.turn]["seconds_left"]
        candidates = log.get(position.turn - 1, {}).get("candidates") or [{"mean": 0.0, "worst": 0.0}]
        assert (position.last_mean, position.last_worst) == (candidates[0]["mean"], candidates[0]["worst"])
    assert any(p.last_mean != 0.0 for p in positions)


def test_saturated_keeps_the_turns_on_which_every_logged_candidate_risked_our_king() -> None:
    every = turn_screen.positions_of(KEPT_GAME, boards=30, seed=0)
    kept = turn_screen.positions_of(KEPT_GAME, boards=30, seed=0, only_saturated=True)
    log = log_rows(KEPT_GAME)
    candidates = {p.turn: log[p.turn].get("candidates") or [] for p in every}
    risked = [t for t, cs in candidates.items() if cs and all(c["worst"] <= -15_000 for c in cs)]
    assert [p.turn for p in kept] == risked and 0 < len(kept) < len(every)
    assert turn_screen.saturated({"candidates": [{"worst": -30_000.0}, {"worst": -29_900.0}]})
    assert not turn_screen.saturated({"candidates": [{"worst": -30_000.0}, {"worst": -900.0}]})
    assert not turn_screen.saturated({"candidates": []})


def test_a_sample_that_missed_the_truth_gets_it_in_place_of_a_drawn_board() -> None:
    truth = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    others = [chess.Board(f"rnbqkbnr/pppp1ppp/8/{e}/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
              for e in ("p7", "1p6", "2p5", "3p4", "5p2", "6p1", "7p")]  # fmt: skip
    rows = np.array([encode(board) for board in others])
    kept = turn_screen.with_truth(rows, truth, 4, np.random.default_rng(0))
    assert len(kept) == 4 and (kept[-1] == encode(truth)).all()
    assert all(any((row == other).all() for other in rows) for row in kept[:-1])
    with_it = np.vstack([rows, encode(truth)[None, :]])
    assert (turn_screen.with_truth(with_it, truth, 20, np.random.default_rng(0)) == with_it).all()


def test_equal_configurations_play_each_turn_alike_with_legal_senses_and_moves(tmp_path: Path) -> None:
    suite = tmp_path / "turns.jsonl.gz"
    extracted = subprocess.run(
        [sys.executable, str(SCRIPT), "extract", str(KEPT_GAME), "--out", str(suite), "--boards", "40",
         "--every", "4"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert extracted.stdout.endswith(f"positions written to {suite}\n")
    positions = {(p.game, p.turn): p for p in turn_screen.load_suite(suite)}
    every = turn_screen.positions_of(KEPT_GAME, boards=40, seed=0)
    assert [p.turn for p in positions.values()] == [p.turn for p in every[::4]]
    flags = ["--fixed", "300/8", "--base-set=move.max_candidates=4", "--candidate-set=move.max_candidates=4"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "run", str(suite), "--sample", "2", "--judge-nodes", "2000",
         "--out", str(tmp_path / "rows.jsonl"), *flags],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and "candidate - base +0.00" in done.stdout
    for row in rows:
        position = positions[(row["game"], row["turn"])]
        assert row["base"] == row["candidate"] and row["base_sense"] == row["candidate_sense"]
        assert row["base_rule"] in {"raid", "danger", "king-hunt", "decision", "likely-window", "window"}
        assert 1 <= row["base_after_sense"] <= len(position.rows)  # the truth survives its own sense
        legal = {m.uci() for m in move_actions(position.truth)} | {"pass"}
        assert row["base"] in legal and row["base_loss"] >= 0.0 and row["base_loss_measured"] >= 0.0
        assert (row["base_loss"] == 0.0) == (row["base_loss_measured"] == 0.0)
    largest = max(p.believed for p in positions.values())
    too_few = subprocess.run(
        [sys.executable, str(SCRIPT), "run", str(suite), "--min-believed", str(largest + 1), *flags],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    assert too_few.stdout.startswith("no positions"), "--min-believed leaves out smaller beliefs"
    smallest = min(p.believed for p in positions.values())
    too_many = subprocess.run(
        [sys.executable, str(SCRIPT), "run", str(suite), "--max-believed", str(smallest - 1), *flags],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    assert too_many.stdout.startswith("no positions"), "--max-believed leaves out larger beliefs"


def test_bad_input_is_one_line_on_stderr(tmp_path: Path) -> None:
    for args, says in (
        (["run", str(tmp_path / "none.jsonl.gz")], "none.jsonl.gz"),
        (["extract", str(KEPT_GAME), "--out", str(tmp_path / "x.gz"), "--every", "0"], "--every"),
    ):
        command = [sys.executable, str(SCRIPT), *args]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 1 and done.stdout == "" and says in done.stderr
        assert done.stderr.startswith("turn_screen.py: error: ") and done.stderr.count("\n") == 1


def test_fixed_puts_node_limits_and_a_board_count_under_both_sides_own_settings() -> None:
    parser = screening.command_line("screen", "extract", 10)[0]
    args = parser.parse_args(["run", "s.gz", "--fixed", "500/12", "--candidate-set", "move.max_boards=20"])
    base, candidate = screening.configs(args)
    for config in (base, candidate):
        assert (config.engine.nodes, config.engine.workers, config.engine.deterministic) == (500, 1, True)
        assert config.move.min_boards == 12
    assert (base.move.max_boards, candidate.move.max_boards) == (12, 20)
    timed = screening.configs(parser.parse_args(["run", "s.gz"]))[0]
    assert timed.engine.nodes is None and not timed.engine.deterministic
    for bad in ("500", "0/12", "500/x"):
        command = [sys.executable, str(SCRIPT), "run", "s.gz", "--fixed", bad]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 2 and "--fixed" in done.stderr and "Traceback" not in done.stderr


def test_parts_of_a_sample_share_it_out_without_overlap(tmp_path: Path) -> None:
    suite = tmp_path / "rows.jsonl.gz"
    with gzip.open(suite, "wt") as stream:
        stream.writelines(json.dumps({"i": i}) + "\n" for i in range(40))
    sample = [row["i"] for row in screening.read_suite(suite, sample=9, seed=3)]
    parts = [[row["i"] for row in screening.read_suite(suite, 9, 3, (k, 2))] for k in range(2)]
    assert len(set(sample)) == 9 and sorted(parts[0] + parts[1]) == sample and len(parts[0]) == 5
    assert screening.part_of("1/3") == (1, 3)
    command = [sys.executable, str(SCRIPT), "run", str(suite), "--part", "2/2"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "expected K/N with 0 <= K < N, not '2/2'" in done.stderr
    assert "Traceback" not in done.stderr


def test_danger_keeps_the_positions_where_our_king_is_attacked_on_some_board() -> None:
    """Two believed boards, White to move: on one a black bishop on b4 checks our king, on the other
    it stands on c5. Kept by --where danger while the checking board is among them, not without it."""
    checked = chess.Board("rnbqk1nr/pppp1ppp/8/4p3/1b1P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 3")
    quiet = chess.Board("rnbqk1nr/pppp1ppp/8/2b1p3/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 3")
    both = turn_screen.TurnPosition(
        "g.json", 3, quiet, np.stack([encode(quiet), encode(checked)]), 2, 100.0, 0, 0
    )
    calm = turn_screen.TurnPosition("g.json", 3, quiet, np.stack([encode(quiet)]), 1, 100.0, 0, 0)
    assert checked.is_check() and not quiet.is_check()
    assert turn_screen.in_danger(both) and not turn_screen.in_danger(calm)


def test_raid_keeps_the_positions_where_we_can_take_the_enemy_king_on_some_board() -> None:
    """White to move; on one believed board the black king stands on e8 before our rook on e1, on the
    other on d8. Kept by --where raid while the board with the king en prise is among them."""
    open_king = chess.Board("4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    hidden = chess.Board("3k4/8/8/8/8/8/8/4RK2 w - - 0 1")
    both = turn_screen.TurnPosition(
        "g.json", 9, hidden, np.stack([encode(hidden), encode(open_king)]), 2, 100.0, 0, 0
    )
    calm = turn_screen.TurnPosition("g.json", 9, hidden, np.stack([encode(hidden)]), 1, 100.0, 0, 0)
    assert turn_screen.raid_possible(both) and not turn_screen.raid_possible(calm)
    assert turn_screen.WHERE["raid"] is turn_screen.raid_possible


def believing(*boards: chess.Board) -> turn_screen.TurnPosition:
    """A turn-9 position believing ``boards``, the first of them the truth."""
    rows = np.stack([encode(board) for board in boards])
    return turn_screen.TurnPosition("g.json", 9, boards[0], rows, len(boards), 100.0, 0, 0)


def test_raid_guess_keeps_the_positions_where_a_raid_would_be_tried_but_may_miss() -> None:
    """The same two boards: Rxe8 works on one of two (50 %, at least the selector's 30 %), a guess;
    with three more boards where the king hides on d8 it works on one of five (20 %), not tried; with
    the open king alone it works on every board, no guess."""
    open_king = chess.Board("4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    hidden = chess.Board("3k4/8/8/8/8/8/8/4RK2 w - - 0 1")

    assert turn_screen.raid_guess(believing(hidden, open_king))
    assert not turn_screen.raid_guess(believing(hidden, open_king, hidden, hidden, hidden))
    assert not turn_screen.raid_guess(believing(open_king))
    assert turn_screen.WHERE["raid-guess"] is turn_screen.raid_guess


def test_queen_keeps_the_positions_where_our_queen_is_attacked_on_some_boards() -> None:
    """White to move, its queen on d1; a black rook on d8 attacks it on one board and stands on a8 on
    the other. One board of two (50 %) or of ten (10 %) is kept by --where queen; one of eleven (9 %)
    is not, nor a belief where every board attacks the queen. --where queen-some keeps any share but
    none and all."""
    attacked = chess.Board("3r2k1/8/8/8/8/8/8/3QK3 w - - 0 1")
    safe = chess.Board("r5k1/8/8/8/8/8/8/3QK3 w - - 0 1")

    assert turn_screen.queen_attacked(believing(safe, attacked))
    assert turn_screen.queen_attacked(believing(attacked, *[safe] * 9))
    assert not turn_screen.queen_attacked(believing(attacked, *[safe] * 10))
    assert not turn_screen.queen_attacked(believing(attacked, attacked))
    assert turn_screen.WHERE["queen"] is turn_screen.queen_attacked
    assert turn_screen.queen_attacked_somewhere(believing(attacked, *[safe] * 10))
    assert not turn_screen.queen_attacked_somewhere(believing(attacked, attacked))
    assert not turn_screen.queen_attacked_somewhere(believing(safe, safe))
    assert turn_screen.WHERE["queen-some"] is turn_screen.queen_attacked_somewhere


def test_board_odds_compares_the_share_of_open_kings_with_the_truth(tmp_path: Path) -> None:
    """Two turns: on one the true board (black king e8 before our rook e1) is one of two believed
    boards allowing the capture; on the other the truth hides its king, and one of its two boards
    allows it. Half the boards promise the capture each time; it worked once in two, as counting
    boards alike predicts (weight 1). Four such turns with one hit need the weight 1/3."""
    import board_odds

    open_king = chess.Board("4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    hidden = chess.Board("3k4/8/8/8/8/8/8/4RK2 w - - 0 1")
    rows = np.stack([encode(hidden), encode(open_king)])
    turns = [
        turn_screen.TurnPosition("g.json", 9, truth, rows, 2, 100.0, 0, 0) for truth in (open_king, hidden)
    ]
    suite = tmp_path / "suite.jsonl.gz"
    with gzip.open(suite, "wt") as stream:
        stream.writelines(json.dumps(turn.as_dict()) + "\n" for turn in turns)
    shares, hits = board_odds.feature_turns(suite)
    assert shares.tolist() == [0.5, 0.5] and hits.tolist() == [True, False]
    assert board_odds.feature_turns(suite, min_believed=3)[0].size == 0, "both beliefs held 2 boards"
    assert abs(board_odds.fitted_weight(shares, hits) - 1.0) < 1e-3
    four = np.full(4, 0.5)
    assert abs(board_odds.fitted_weight(four, np.array([True, False, False, False])) - 1 / 3) < 1e-3
    done = subprocess.run([sys.executable, str(SCRIPT.parent / "board_odds.py"), str(suite)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert "2 turns where some believed board has king-en-prise; the true board had it on 1" in done.stdout
    screened = tmp_path / "rows.jsonl"
    rows = [("e1e8", "e1e2", 0.0, 0.4), ("e1e2", "e1e2", 0.1, 0.1)]  # only the first tries the capture
    keys = ("base", "candidate", "base_loss", "candidate_loss")
    lines = [{"game": "g.json", "turn": 9, **dict(zip(keys, row, strict=True))} for row in rows]
    screened.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert board_odds.raid_rows(suite, [screened]) == (1, 0.0, 0.4), (
        "the row without a king capture is left out"
    )
    odds = str(SCRIPT.parent / "board_odds.py")
    missing = subprocess.run([sys.executable, odds, str(tmp_path / "none.gz")],
                             capture_output=True, text=True, check=False)  # fmt: skip
    assert missing.returncode == 1 and missing.stderr.startswith("board_odds.py: error:")
    assert "Traceback" not in missing.stderr and len(missing.stderr.splitlines()) == 1


def test_board_odds_features_read_the_side_to_move() -> None:
    """White to move. The black knight on d5 hangs to the pawn on e4 (a cheaper attacker), the black
    rook on a5 to our rook (nothing defends it); the black bishop on b4 checks our king; with the
    black king on e8 before our rook on e1 the capture is there."""
    import board_odds

    hangs = chess.Board("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1")
    loose_rook = chess.Board("4k3/8/8/r7/8/8/8/R3K3 w - - 0 1")
    checked = chess.Board("4k3/8/8/8/1b6/8/8/4K3 w - - 0 1")
    open_king = chess.Board("4k3/8/8/8/8/8/8/4RK2 w - - 0 1")
    features = board_odds.FEATURES
    assert features["piece-hangs"](hangs) and not features["piece-hangs"](checked)
    assert features["piece-hangs"](loose_rook), "nothing defends the black rook"
    assert features["our-king-attacked"](checked) and not features["our-king-attacked"](hangs)
    assert features["king-en-prise"](open_king) and not features["king-en-prise"](checked)
    over = np.full(4, 0.25)
    assert board_odds.fitted_weight(over, np.array([True, True, False, False])) > 1.0, "likelier than counted"
