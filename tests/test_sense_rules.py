"""Which sense rule acts (the raid rule before the danger rule when asked; the decision rule only up to
``sense.decision_max_boards`` believed boards; the queen rule when asked) and what the decision rule weighs
(``sense.decision_boards_per_point``), with real Stockfish."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.belief import encode
from rbc_bot.belief_rows import decode
from rbc_bot.board_sample import our_king_attacked, our_piece_hangs, our_queen_attacked
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.engine import king_capture_moves
from rbc_bot.replay.load import load_game
from rbc_bot.replay.resim import resimulate
from rbc_bot.rules import sense_window
from rbc_bot.sense import INTERIOR, expected_survivors, window_square
from rbc_bot.sense_rules import SenseInputs, SenseRules

ROOT = Path(__file__).resolve().parent.parent


def after_each_unseen_reply(*opening: str) -> list[chess.Board]:
    """What the side that played ``opening`` (default 1. e4) believes after a reply it did not see: one
    board per move the other side could make, RBC's way (a check may be ignored)."""
    board = chess.Board()
    for san in opening or ("e4",):
        board.push_san(san)
    boards = []
    for reply in board.pseudo_legal_moves:
        child = board.copy()
        child.push(reply)
        boards.append(child)
    return boards


def mixed_after_sense(boards: Sequence[chess.Board], marked: Sequence[bool], square: int) -> int:
    """How many boards land in a sense result at ``square`` that leaves marked and unmarked boards
    together (boards grouped by what the 3x3 window around ``square`` shows)."""
    rank, file = chess.square_rank(square), chess.square_file(square)
    window = [
        chess.square(f, r)
        for r in range(rank - 1, rank + 2)
        for f in range(file - 1, file + 2)
        if 0 <= r < 8 and 0 <= f < 8
    ]
    groups: dict[tuple[chess.Piece | None, ...], list[bool]] = {}
    for board, mark in zip(boards, marked, strict=True):
        groups.setdefault(tuple(board.piece_at(sq) for sq in window), []).append(mark)
    return sum(len(marks) for marks in groups.values() if 0 < sum(marks) < len(marks))


def test_decision_rule_only_up_to_its_belief_size() -> None:
    """20 believed boards: with no limit (0) or a limit of 20 the decision rule picks the centre; with a
    limit of 19 the window rule does (the plain one, likely weights off), its centre the one leaving the
    fewest boards, and no engine runs."""
    boards = after_each_unseen_reply()
    assert len(boards) == 20
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    for limit, decides in ((0, True), (20, True), (19, False)):
        config = load_config(
            None,
            [
                "engine.workers=1",
                "sense.danger_first=false",
                "sense.likely_weights=false",
                f"sense.decision_max_boards={limit}",
            ],
        )
        bot = RbcBot(config)
        try:
            bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
            rules = SenseRules(bot.config, bot.scorer, bot.rng)
            assert rules.decides(seen) == decides
            if not decides:
                assert rules.choose(seen) == (window_square(rows), "window")
                assert bot.scorer.evaluations == 0  # the window rule needs no engine
        finally:
            bot.close()


def test_decision_rule_weighs_boards_left_when_asked() -> None:
    """White after 1. e4 c5 2. Nf3 d6 3. d4 and an unseen reply (30 boards), no size limit, a deterministic
    engine searching fixed node counts with time to score every board (a loaded machine cannot change it):
    the decision rule alone picks a centre leaving more than the fewest boards (the move choice is worth
    it); with a point worth a millionth of a board it picks one leaving the fewest, still after scoring
    the candidates with the engine."""
    boards = after_each_unseen_reply("e4", "c5", "Nf3", "d6", "d4")
    rows = np.stack([encode(b) for b in boards])
    left = expected_survivors(rows)
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 60.0, False)
    chosen_left = []
    for per_point in ("0", "1e-6"):
        settings = ["sense.decision_max_boards=0", f"sense.decision_boards_per_point={per_point}"]
        fixed = ["engine.workers=1", "engine.deterministic=true", "engine.nodes=2000"]
        config = load_config(None, [*fixed, "sense.danger_first=false", *settings])
        bot = RbcBot(config)
        try:
            bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
            square, rule = SenseRules(bot.config, bot.scorer, bot.rng).choose(seen)
            assert rule == "decision" and square is not None and bot.scorer.evaluations > 0
            chosen_left.append(left[INTERIOR.index(square)])
        finally:
            bot.close()
    assert chosen_left[0] > left.min() and chosen_left[1] == left.min()


def chosen_sense(board: chess.Board, seen: SenseInputs, settings: list[str]) -> tuple[int | None, str]:
    """The square and rule SenseRules picks for ``seen`` in a bot (one engine worker, ``settings``)
    whose game started from ``board``, with the bot's engines closed afterwards."""
    bot = RbcBot(load_config(None, ["engine.workers=1", *settings]))
    try:
        bot.handle_game_start(seen.color, board.copy(), "nobody")
        return SenseRules(bot.config, bot.scorer, bot.rng).choose(seen)
    finally:
        bot.close()


def test_raid_rule_senses_whether_the_king_capture_works_before_the_danger_rule() -> None:
    """Black after 1. e4 e6 2. d4 d5 3. Nc3 dxe4 4. Nxe4 Bb4+ and a White reply it did not see: Bxe1
    works on the boards where White neither blocked nor moved its king, and our king is attacked on a
    few (Nd6+, Nf6+). With the raid rule off, or with ``sense.raid_share`` above Bxe1's share (34 of 41
    boards), the danger rule senses, and on some of its results whether Bxe1 works stays a guess; with
    a share below it (the default, 0.3) the raid rule senses, and whatever it shows, the boards left
    agree on whether Bxe1 works."""
    boards = after_each_unseen_reply("e4", "e6", "d4", "d5", "Nc3", "dxe4", "Nxe4", "Bb4+")
    works = [chess.Move.from_uci("b4e1") in king_capture_moves(board) for board in boards]
    assert (sum(works), len(boards)) == (34, 41)
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.BLACK, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    mixed = {}
    for settings, expected_rule in (
        (["sense.raid_share=0"], "danger"),
        (["sense.raid_share=0.9"], "danger"),
        ([], "raid"),  # the default
    ):
        square, rule = chosen_sense(boards[0], seen, settings)
        assert rule == expected_rule and square is not None
        mixed[rule] = mixed_after_sense(boards, works, square)
    assert mixed["danger"] > 0 and mixed["raid"] == 0


def test_queen_rule_tells_apart_the_boards_where_our_queen_is_attacked_when_asked() -> None:
    """White after 1. e4 e5 2. Qh5 and a reply it did not see: the queen is attacked on 4 of the 28
    boards (...Nf6, ...Qg5, ...Qh4, ...g6). With ``sense.queen_share`` at or below that share the queen
    rule senses, and whatever it shows, the boards left agree on whether the queen is attacked; off
    (the default) or above the share, the window rule senses and some result leaves them mixed."""
    boards = after_each_unseen_reply("e4", "e5", "Qh5")
    attacked = [our_queen_attacked(board) for board in boards]
    assert (sum(attacked), len(boards)) == (4, 28)
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    for settings, expected_rule in (
        ([], "window"),  # the default: off
        (["sense.queen_share=0.2"], "window"),
        (["sense.queen_share=0.1"], "queen"),
    ):
        square, rule = chosen_sense(boards[0], seen, ["sense.method=window", *settings])
        assert rule == expected_rule and square is not None
        assert (mixed_after_sense(boards, attacked, square) == 0) == (rule == "queen")


def test_queen_rule_goes_first_when_its_threat_outweighs_the_kings() -> None:
    """Black after 1. e4 e5 2. Qh5 Nc6 3. Bb5 Qf6 and a reply it did not see: our king is attacked on 2
    of the 42 boards (Qxf7+, Qxe5+) and our queen on 8 (those two and six queen moves). In a belief
    this small the danger rule senses any check, so by default it takes the sense; with
    ``sense.queen_over_danger=0.5`` (a king share under half the queen's) the queen rule goes first and
    leaves fewer boards mixed, attacked and safe queens together, than the danger rule's sense. At 0.2
    (2/42 is not under a fifth of 8/42) the danger rule keeps it."""
    boards = after_each_unseen_reply("e4", "e5", "Qh5", "Nc6", "Bb5", "Qf6")
    king = [our_king_attacked(board) for board in boards]
    queen = [our_queen_attacked(board) for board in boards]
    assert (sum(king), sum(queen), len(boards)) == (2, 8, 42)
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.BLACK, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    queen_first = ["sense.queen_share=0.1", "sense.queen_over_danger=0.5"]
    mixed = {}
    for settings, expected_rule in (
        (["sense.queen_share=0.1"], "danger"),
        (["sense.queen_share=0.1", "sense.queen_over_danger=0.2"], "danger"),
        (queen_first, "queen"),
    ):
        square, rule = chosen_sense(boards[0], seen, ["sense.method=window", *settings])
        assert rule == expected_rule and square is not None
        mixed[rule] = mixed_after_sense(boards, queen, square)
    assert mixed["queen"] < mixed["danger"], mixed


def test_piece_rule_goes_first_when_a_hanging_piece_outweighs_a_rare_check() -> None:
    """Black after 1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 and a reply it did not see: our king is attacked on 2
    of the 32 boards (Bxf7+, Bb5+) and the bishop on g4 hangs on 7 (h3, the knight leaving f3 for the
    queen's line, Be6). In a belief this small the danger rule senses any check, so by default it
    takes the sense; with ``sense.piece_over_danger=0.5`` the piece rule goes first and leaves fewer
    boards mixed, hanging and safe bishops together; at 0.2 (2/32 is not under a fifth of 7/32) the
    danger rule keeps it. Past ``sense.danger_always_below`` boards it stands aside (and so does the
    danger rule, for a check on under 10 % of the boards)."""
    boards = after_each_unseen_reply("e4", "e5", "Nf3", "d6", "Bc4", "Bg4")
    hangs = [our_piece_hangs(board) for board in boards]
    assert (sum(our_king_attacked(board) for board in boards), sum(hangs), len(boards)) == (2, 7, 32)
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.BLACK, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    mixed = {}
    for settings, expected_rule in (
        ([], "danger"),
        (["sense.piece_over_danger=0.2"], "danger"),
        (["sense.piece_over_danger=0.5", "sense.danger_always_below=31"], "window"),
        (["sense.piece_over_danger=0.5"], "piece"),
    ):
        square, rule = chosen_sense(boards[0], seen, ["sense.method=window", *settings])
        assert rule == expected_rule and square is not None
        mixed[rule] = mixed_after_sense(boards, hangs, square)
    assert mixed["piece"] < mixed["danger"], mixed


def test_a_piece_hangs_to_a_lesser_attacker_or_undefended() -> None:
    """A knight attacked by a pawn hangs though defended; a rook attacked by a queen hangs only
    undefended; a bishop that only their king attacks hangs only undefended; pawns never count."""
    cases = {
        "4k3/8/8/3p4/4N3/8/8/4K3 w - - 0 1": True,  # pawn takes knight
        "4k3/8/8/3p4/4N3/5P2/8/4K3 w - - 0 1": True,  # defended, still a pawn for a knight
        "4k3/8/8/8/q3R3/8/8/4K3 w - - 0 1": True,  # the queen takes an undefended rook
        "4k3/8/8/8/q3R3/4K3/8/8 w - - 0 1": False,  # ... defended by the king
        "8/8/8/4k3/4B3/8/8/4K3 w - - 0 1": True,  # their king takes an undefended bishop
        "8/8/8/4k3/4B3/5P2/8/4K3 w - - 0 1": False,  # ... not a defended one
        "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1": False,  # a pawn
    }
    for fen, hangs in cases.items():
        assert our_piece_hangs(chess.Board(fen)) is hangs, fen


ATTACKER_RUSH = (
    ROOT / "benchmarks/strength/2026-12-04-s25/ar-clip25/attacker"
    / "rbc_bot_move.clipped_standing=true_-attacker-s201-2026_12_04-14_38_05.json"
)  # fmt: skip


def test_danger_rule_senses_any_check_in_the_opening_turns_when_asked() -> None:
    """A lost game against AttackerBot (seed 201, we are White): its knight went b8-c6-b4-d3 unseen,
    and at our turn 4 the belief held 1,399 boards with our king attacked on a few of them, under the
    danger rule's 10 % for beliefs above 1,000; the window sense went elsewhere and the knight took
    our king. With ``sense.danger_opening_turns=6`` the danger rule senses that check at turn 4, and
    not at turn 7 (the same boards): later, cutting a large belief is worth more."""
    before_sense: dict[int, np.ndarray] = {}

    def keep(turn: Any, at: str, tracker: Any) -> None:
        if at == "opponent":
            before_sense[turn.turn_number + 1] = tracker.rows.copy()

    resimulate(load_game(ATTACKER_RUSH).history, chess.WHITE, observe=keep)
    rows = before_sense[4]
    boards = decode(rows, chess.WHITE)
    share = float(np.mean([our_king_attacked(board) for board in boards]))
    assert len(rows) > 1_000 and 0 < share < 0.1
    actions = move_actions(boards[0])
    for turn, settings, expected in (
        (4, [], False),
        (4, ["sense.danger_opening_turns=6"], True),
        (7, ["sense.danger_opening_turns=6"], False),
        (4, ["sense.danger_unparried=true"], True),
        (7, ["sense.danger_unparried=true"], True),
    ):
        seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, actions, 2.0, False, turn)
        square, rule = chosen_sense(boards[0], seen, ["sense.method=window", *settings])
        assert (rule == "danger") == expected and square is not None
        if expected:  # the centre shows both knights' checking squares
            assert {chess.D3, chess.F3} <= set(sense_window(square))


def test_their_king_next_to_ours_is_danger_only_when_asked() -> None:
    """A rook ending against a lone king whose square we do not know (ranks 5-7, files b-g): on 3 of the
    18 boards it stands next to ours, where our king takes it. The danger rule counts those boards as
    attacked and takes the sense; with ``sense.danger_king_contact=false`` only attacks by other pieces
    count, no board is in danger, and the king hunt locates their king."""
    boards = []
    for square in chess.SquareSet(chess.BB_RANK_5 | chess.BB_RANK_6 | chess.BB_RANK_7):
        if chess.square_file(square) not in (0, 7):
            board = chess.Board("8/8/8/8/3K4/8/8/R7 w - - 0 40")
            board.set_piece_at(square, chess.Piece(chess.KING, chess.BLACK))
            boards.append(board)
    attacked = [our_king_attacked(board) for board in boards]
    assert (sum(attacked), len(boards)) == (3, 18)
    assert not any(our_king_attacked(board, by_king=False) for board in boards)
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.WHITE, 1200.0, 1200.0, move_actions(boards[0]), 2.0, False, 40)
    for settings, expected_rule in (([], "danger"), (["sense.danger_king_contact=false"], "king-hunt")):
        square, rule = chosen_sense(boards[0], seen, settings)
        assert rule == expected_rule and square is not None
    checked = chess.Board("8/8/8/2k5/3K4/8/8/3r4 w - - 0 40")  # their rook checks too: danger either way
    assert our_king_attacked(checked) and our_king_attacked(checked, by_king=False)
