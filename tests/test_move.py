"""The best-worst move selector on hand-built beliefs with a known answer, scored by real Stockfish.

Deterministic: one engine process, Threads=1, a fixed search depth (plan_depth cannot deepen it),
fixed rng seeds (tests/move_helpers.py). King captures: tests/test_raid.py.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import chess
import numpy as np
import pytest
from move_helpers import (
    actions,
    boards_of,
    decide,
    deterministic_scorer,
    king_capturable_after,
    safe_everywhere,
)
from reconchess.utilities import move_actions

from rbc_bot.board_sample import Tiers, our_king_attacked
from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import SecondLook, choose_move, pawn_pushes, propose, quiet_checks
from rbc_bot.playout import play_out
from rbc_bot.ranking import rank
from rbc_bot.scorer import Scorer


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    yield from deterministic_scorer()


# --- our king attacked ---------------------------------------------------------------------------

QUEEN_NEXT_TO_KING = "k7/8/8/8/8/8/P3q3/4K3 w - - 0 1"  # only Kxe2 saves the king
QUEEN_FAR = "k6q/8/8/8/8/8/P7/4K3 w - - 0 1"
ROOK_CHECK = "k7/8/8/8/8/8/P7/r3K2R w K - 0 1"  # rook check on the first rank
BISHOP_CHECK = "k7/8/8/8/1b6/8/P4P2/4K2R w K - 0 1"


@pytest.mark.parametrize(
    "fens",
    [
        (QUEEN_NEXT_TO_KING, QUEEN_FAR),
        (QUEEN_FAR, QUEEN_NEXT_TO_KING, QUEEN_FAR.replace("k6q", "1k5q")),
        (ROOK_CHECK, ROOK_CHECK.replace("r3K2R", "4K2R")),
        (BISHOP_CHECK, BISHOP_CHECK.replace("1b6", "8"), BISHOP_CHECK.replace("1b6", "6b1")),
    ],
    ids=["queen-adjacent", "queen-adjacent-minority", "rook-check", "bishop-check"],
)
def test_attacked_king_is_saved_on_every_board(scorer: Scorer, fens: tuple[str, ...]) -> None:
    boards = boards_of(*fens)
    assert any(our_king_attacked(b) for b in boards)
    offered: list[chess.Move | None] = [*actions(boards), None]
    saving = [m for m in offered if safe_everywhere(boards, m)]
    assert saving, "the hand-built belief must allow a saving move"
    decision = decide(boards, scorer)
    assert decision.move in saving, (decision.move, [str(m) for m in saving])
    for board in boards:
        assert not king_capturable_after(board, decision.move)


def test_queen_next_to_king_is_captured(scorer: Scorer) -> None:
    """Hand analysis: every king step and the pass leave Qe2 taking our king; only Kxe2 saves it."""
    boards = boards_of(QUEEN_NEXT_TO_KING, QUEEN_FAR)
    offered: list[chess.Move | None] = [*actions(boards), None]
    assert [m for m in offered if safe_everywhere(boards, m)] == [chess.Move.from_uci("e1e2")]
    assert decide(boards, scorer).move == chess.Move.from_uci("e1e2")


# --- best-worst ----------------------------------------------------------------------------------

# Black threatens Rd1 mate on both boards. On A the d8 rook hangs: Qa5xd8 is mate. On B the a8 rook
# guards it: Qxd8+ Rxd8 loses the queen for a rook with the back-rank mate still threatened.
ROOK_HANGS = "3r2k1/5ppp/8/Q7/8/8/5PPP/6K1 w - - 0 1"
ROOK_GUARDED = "r2r2k1/5ppp/8/Q7/8/8/5PPP/6K1 w - - 0 1"
QXD8 = chess.Move.from_uci("a5d8")


def test_min_aggregation_avoids_the_move_that_loses_on_one_board(scorer: Scorer) -> None:
    boards = boards_of(ROOK_HANGS, ROOK_GUARDED)
    decision = decide(boards, scorer, "min")
    assert decision.reason == "best-worst"
    by_move = {c.move: c for c in decision.candidates}
    assert QXD8 in by_move, "Stockfish proposes the mate on board A"
    qxd8 = by_move[QXD8]
    assert qxd8.worst < -300  # queen for rook on board B
    assert qxd8.mean > 5_000  # mate on board A
    assert decision.move != QXD8
    chosen = by_move[decision.move]
    assert chosen.worst > qxd8.worst + 300
    assert chosen.worst == max(c.worst for c in decision.candidates)


def test_mean_aggregation_weighs_expected_score_not_raw_centipawns(scorer: Scorer) -> None:
    """A mate (+20,000 cp) on board A would dominate a raw-centipawn mean; as expected scores it gains
    little over the safe move's won position on A and loses the queen on B, so the mean avoids it."""
    boards = boards_of(ROOK_HANGS, ROOK_GUARDED)
    decision = decide(boards, scorer, "mean")
    by_move = {c.move: c for c in decision.candidates}
    assert by_move[QXD8].mean > 5_000  # the raw-centipawn mean is the highest of all
    assert by_move[QXD8].mean == max(c.mean for c in decision.candidates)
    assert decision.move != QXD8
    best = decision.candidates[0]
    assert best.king_losses == 0
    assert best.score == max(c.score for c in decision.candidates if c.king_losses == 0)


def test_single_legal_choice(scorer: Scorer) -> None:
    """One request offered (Rxd5, winning the queen): without the pass it is the only candidate and is
    chosen without scoring; with the pass both are scored and the capture wins."""
    board = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    only = chess.Move.from_uci("d2d5")
    no_pass = MoveConfig(consider_pass=False)
    decision = choose_move([board], [only], scorer, no_pass, 2.0, np.random.default_rng(0))
    assert (decision.move, decision.reason, decision.evaluations) == (only, "only-move", 0)
    decision = choose_move([board], [only], scorer, MoveConfig(), 2.0, np.random.default_rng(0))
    assert (decision.move, decision.reason) == (only, "best-worst")
    assert [c.move for c in decision.candidates] == [only, None]
    assert decision.candidates[0].worst > decision.candidates[1].worst + 500


def test_empty_belief(scorer: Scorer) -> None:
    assert decide([], scorer).reason == "no-boards"
    decision = choose_move([], [], scorer, MoveConfig(), 1.0, np.random.default_rng(0))
    assert (decision.move, decision.reason, decision.candidates) == (None, "no-boards", [])


def test_search_time_caps_fit_the_budget_and_the_engine_timeout(scorer: Scorer) -> None:
    """One engine here (timeout 10 s): searches run one after another, each given its share less the
    fixed cost of a search, and none may near the timeout (the engine would be restarted); a depth far
    beyond the budget is stopped by its movetime."""
    fixed = scorer.measure_fixed_cost()
    assert 0 < fixed < 0.05, "a depth-1 search answered from the hash costs about a millisecond"
    assert scorer._movetime(3, 6.0) == pytest.approx(2.0 - fixed)
    assert scorer._movetime(3, 0.003) == 0.002, "never below 2 ms"
    assert scorer._movetime(1, 40.0) == pytest.approx(5.0)
    assert scorer._movetime(0, 1.0) is None
    deep = Scorer(scorer.engine, EngineConfig(depth=1, max_depth=30))
    board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 9")
    started = time.perf_counter()
    deep.evaluate([board], depth=30, budget_seconds=0.3)
    assert time.perf_counter() - started < 5.0  # depth 30 alone would take minutes


def test_a_quiet_check_earns_its_bonus(scorer: Scorer) -> None:
    """One board (White: e4; Black: d5, e5): the only check is the quiet Bb5+, not the engine's choice.
    With no bonus the engine's choice stands; with a bonus worth more than any difference between the
    moves, the quiet check is chosen (it is added as a candidate even though the engine does not propose
    it)."""
    board = chess.Board("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    offered = actions([board])

    def chosen(bonus: float) -> chess.Move | None:
        config = MoveConfig(quiet_check_bonus=bonus)
        return choose_move([board], offered, scorer, config, 2.0, np.random.default_rng(0)).move

    plain = chosen(0.0)
    assert plain is not None and not board.gives_check(plain)
    assert chosen(5_000.0) == chess.Move.from_uci("f1b5")


def test_check_odds_choose_the_quiet_check_in_place_of_the_bonus(scorer: Scorer) -> None:
    """The board above with real scores: odds of 0.5 lift the quiet Bb5+ from about even to about
    +190 cp, more than any difference between the moves, so it is chosen; the odds replace the
    centipawn bonus rather than add to it (played out with both, the check's cell holds the odds alone)."""
    board = chess.Board("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    offered = actions([board])
    config = MoveConfig(quiet_check_bonus=0.0, quiet_check_odds=0.5)
    assert choose_move(
        [board], offered, scorer, config, 2.0, np.random.default_rng(0)
    ).move == chess.Move.from_uci("f1b5")
    check, quiet = chess.Move.from_uci("f1b5"), chess.Move.from_uci("g1f3")
    played = play_out([check, quiet], [board], MoveConfig(quiet_check_bonus=100.0, quiet_check_odds=0.5), 0.0)
    assert played.checks.tolist() == [[True], [False]] and not played.bonus.any()
    scores = played.scores(np.zeros(len(played.children)))
    assert scores[0, 0] == pytest.approx(400 * np.log10(0.75 / 0.25)) and scores[1, 0] == 0.0


def test_king_exposure_costs_the_move_that_opens_a_quiet_check() -> None:
    """1. e4 e5 2. d4 opens e1-b4: ...Bb4+ then checks our king on an empty square; 2. Nf3 does not."""
    board = chess.Board("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
    opening, developing = chess.Move.from_uci("d2d4"), chess.Move.from_uci("g1f3")
    played = play_out([opening, developing, None], [board, board], MoveConfig(king_exposure_cp=70.0), 0.0)
    assert played.bonus.tolist() == [[-70.0, -70.0], [0.0, 0.0], [0.0, 0.0]]
    assert not play_out([opening], [board], MoveConfig(), 0.0).bonus.any()  # off by default


def test_quiet_checks_counts_only_checks_without_capture() -> None:
    # Rxe5+ captures; Bb5+, Qb5+, Qb8+ and Qg6+ do not.
    board = chess.Board("4k3/8/8/4r3/8/8/8/1Q2RBK1 w - - 0 1")
    counts = quiet_checks([board, board], set(move_actions(board)))
    assert {m.uci(): n for m, n in counts.items()} == {"f1b5": 2, "b1b5": 2, "b1b8": 2, "b1g6": 2}


def test_fill_budget_deepens_until_the_budget_is_used() -> None:
    """The depth plan alone can leave most of a turn unused; ``fill_budget`` spends it on deeper passes."""
    boards = [chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")]
    with EnginePool(None, 1) as engine:
        plain = Scorer(engine, EngineConfig(workers=1, fill_budget=False))
        _, plain_depth = plain.evaluate_deepening(boards, 2, 1.0)
        filling = Scorer(engine, EngineConfig(workers=1, fill_budget=True, fill_last_pass=True))
        started = time.perf_counter()
        scores, deep = filling.evaluate_deepening(boards, 2, 1.0)
        elapsed = time.perf_counter() - started
        counted = Scorer(engine, EngineConfig(workers=1, fill_budget=True, nodes=500))
        _, counted_depth = counted.evaluate_deepening(boards, 2, 1.0)  # node limits: every pass the same
    assert plain_depth == 2 and counted_depth == 2
    assert deep > 2 and len(scores) == 1
    # The pass predicted not to fit still runs, each search capped by its share of what is left, so
    # the budget is spent: at most LAST_PASS_SHARE of it is left when that pass is skipped.
    assert elapsed >= 0.7, "the deeper passes used most of the budget"
    assert elapsed <= 3.0, "each pass is capped by its movetime (generous bound: a loaded machine)"


def replies_to_e4(count: int) -> list[chess.Board]:
    """``count`` believed boards: Black's first replies to 1. e4, White to move."""
    start = chess.Board()
    start.push_uci("e2e4")
    boards = []
    for reply in list(start.legal_moves)[:count]:
        board = start.copy()
        board.push(reply)
        boards.append(board)
    return boards


def test_boards_scored_are_bounded_by_what_the_searches_fixed_costs_allow() -> None:
    """Twenty believed boards and a 2 s budget: the scorer's learned cost per evaluation would score
    them all, but on a machine where each search costs 0.1 s beyond its movetime only about 16 searches
    fit, so the fewest boards (``min_boards``) are scored rather than overrunning the turn."""
    boards = replies_to_e4(20)
    config = MoveConfig()
    with EnginePool(None, 1) as engine:
        free = Scorer(engine, EngineConfig(workers=1))
        free.fixed_cost = 0.0
        unbounded = choose_move(boards, actions(boards), free, config, 2.0, np.random.default_rng(0))
        loaded = Scorer(engine, EngineConfig(workers=1))
        loaded.fixed_cost = 0.1
        bounded = choose_move(boards, actions(boards), loaded, config, 2.0, np.random.default_rng(0))
    assert unbounded.boards_scored == 20
    assert bounded.boards_scored == config.min_boards


def test_a_depth_floor_scores_no_more_boards_than_reach_it() -> None:
    """Twenty believed boards and a 4 s budget, on a scorer whose learned cost per evaluation (3 ms at
    depth 1, each ply 1.8x the last) pays for every board at the least depth: without a floor all
    twenty are scored; with ``move.min_depth=5`` (32 ms an evaluation) no more than 85 % of the budget
    pays at that depth for all the candidates, fewer than twenty; with 8 (184 ms) the fewest
    (``move.min_boards``)."""
    boards = replies_to_e4(20)
    chosen = {}
    with EnginePool(None, 1) as engine:
        for floor in (0, 5, 8):
            scorer = Scorer(engine, EngineConfig(workers=1))
            scorer.fixed_cost, scorer.seconds_per_eval = 0.0, 0.003
            config = MoveConfig(min_depth=floor)
            chosen[floor] = choose_move(
                boards, actions(boards), scorer, config, 4.0, np.random.default_rng(0)
            )
    at_depth_5 = int(0.85 * 4.0 / (0.003 * Scorer.DEPTH_GROWTH**4)) // len(chosen[5].candidates)
    assert chosen[0].boards_scored == 20
    assert MoveConfig.min_boards <= chosen[5].boards_scored <= max(at_depth_5, MoveConfig.min_boards) < 20
    assert chosen[8].boards_scored == MoveConfig.min_boards


def two_black_replies(count: int) -> list[chess.Board]:
    """``count`` distinct believed boards, White to move after 1. e4 and 2. Nf3: Black's first two
    moves vary, White's pieces stand alike on every board (no capture of them)."""
    first = chess.Board()
    first.push_uci("e2e4")
    boards: dict[str, chess.Board] = {}
    for reply in list(first.legal_moves):
        second = first.copy()
        second.push(reply)
        second.push_uci("g1f3")
        for answer in second.legal_moves:
            if not second.is_capture(answer):
                board = second.copy()
                board.push(answer)
                boards.setdefault(board.fen(), board)
    return list(boards.values())[:count]


def test_the_breadth_fill_scores_more_boards_at_the_depth_reached() -> None:
    """A hundred believed boards, the first pass held to twenty (``move.max_boards``) at depth 2
    (``engine.max_depth``, no deepening): with ``move.fill_breadth=50`` the time that pass left scores
    thirty more boards at the same depth, none scored twice; off, the twenty alone."""
    boards = two_black_replies(100)
    assert len(boards) == 100 and len({b.fen() for b in boards}) == 100
    decisions = {}
    with EnginePool(None, 1) as engine:
        for fill in (0, 50):
            scorer = Scorer(engine, EngineConfig(workers=1, max_depth=2, fill_budget=False))
            scorer.fixed_cost = 0.0
            config = MoveConfig(max_boards=20, fill_breadth=fill)
            decisions[fill] = choose_move(
                boards, actions(boards), scorer, config, 4.0, np.random.default_rng(0)
            )
    assert decisions[0].boards_scored == 20 and decisions[50].boards_scored == 50
    assert decisions[0].widened == 0 and decisions[50].widened == 30
    assert decisions[0].depth == decisions[50].depth == 2
    assert decisions[50].move in actions(boards)


def test_the_last_pass_runs_only_where_each_search_gets_time_beyond_its_fixed_cost(scorer: Scorer) -> None:
    """A 10 s budget, one engine: a next pass predicted to fit gets all that is left; one predicted
    not to fit gets it too if a fifth of the budget is left. Either way each search must get more than
    the least movetime beyond its fixed cost (the search counts below are set from the measured fixed
    cost, which a loaded machine raises). A match turn of 7,000 searches once took 14 s of an 8 s budget
    on a last pass whose searches were each given less than their fixed cost."""
    filling = Scorer(scorer.engine, EngineConfig(fill_budget=True, fill_last_pass=True))
    floor = filling.measure_fixed_cost() + Scorer.MIN_MOVETIME
    few = int(3.0 / floor) // 2  # searches with twice the floor each in 3 s
    many = int(3.0 / floor) + 10  # searches whose share of 3 s is below it
    assert filling.most_searches(3.0) == int(3.0 / floor)
    assert filling.next_pass_budget(left=6.0, last_pass=2.0, growth=2.0, budget=10.0, searches=few) == 6.0
    assert filling.next_pass_budget(left=6.0, last_pass=2.5, growth=3.0, budget=10.0, searches=few) == 6.0
    assert filling.next_pass_budget(left=1.9, last_pass=0.5, growth=4.0, budget=10.0, searches=4) is None
    assert filling.next_pass_budget(left=3.0, last_pass=2.5, growth=2.0, budget=10.0, searches=many) is None
    # A pass predicted to fit is refused too when its searches' shares are below that floor (their
    # movetimes would be floored at the least one, and the pass would overrun).
    assert filling.next_pass_budget(left=3.0, last_pass=0.1, growth=2.0, budget=10.0, searches=few) == 3.0
    assert filling.next_pass_budget(left=3.0, last_pass=0.1, growth=2.0, budget=10.0, searches=many) is None
    # Without the last pass, only a pass predicted to fit runs.
    complete = Scorer(scorer.engine, EngineConfig(fill_budget=True, fill_last_pass=False))
    assert complete.next_pass_budget(left=6.0, last_pass=2.0, growth=2.0, budget=10.0, searches=few) == 6.0
    assert complete.next_pass_budget(left=6.0, last_pass=2.5, growth=3.0, budget=10.0, searches=few) is None


def test_the_second_look_corrects_a_shallow_pass_on_the_worst_boards(scorer: Scorer) -> None:
    """A queen up, a first pass (here made up) says the sortie Qd5 beats a2a3 on both boards; on the
    first board a pawn takes the queen, and a level pawn ending is left. Searched again on each top
    candidate's worst board, a2a3 leads, and the candidates below the top keep their place."""
    boards = boards_of("4k3/8/4p3/8/8/8/P7/3QK3 w - - 0 1", "4k3/8/8/8/8/8/P7/3QK3 w - - 0 1")
    sortie, quiet, king = (chess.Move.from_uci(m) for m in ("d1d5", "a2a3", "e1e2"))
    first_pass = np.array([[950.0, 960.0], [900.0, 910.0], [800.0, 800.0]])
    config = MoveConfig(second_look=2, second_look_boards=1)
    ranked = rank([sortie, quiet, king], first_pass, config)
    assert [c.move for c in ranked] == [sortie, quiet, king]
    look = SecondLook([sortie, quiet, king], boards, first_pass, None)
    looked = look.rerank(ranked, scorer, config, 2.0, 0.0, {})
    assert [c.move for c in looked] == [quiet, sortie, king]
    assert looked[1].worst < 200  # the level pawn ending
    assert looked[1].mean == pytest.approx((looked[1].worst + 960.0) / 2)  # the second board kept
    assert look.rerank(ranked, scorer, MoveConfig(second_look=1), 2.0, 0.0, {}) == ranked


# --- proposing candidates ------------------------------------------------------------------------

QUEEN_HANGS = "6k1/5ppp/8/3q4/8/8/5PPP/3R2K1 w - - 0 1"  # Rd1xd5 wins the queen
QUEEN_HANGS_KNIGHT_CHECKS = "6k1/5ppp/8/3q4/8/7n/5PPP/3R2K1 w - - 0 1"  # Nh3 checks: escape first


@pytest.mark.parametrize(("share", "proposed"), [(1.0, False), (0.5, True)])
def test_a_rare_threat_leaves_room_to_propose_what_the_other_boards_want(
    scorer: Scorer, share: float, proposed: bool
) -> None:
    """30 boards where a knight checks our king (their escapes are proposed first) and 70 where it is
    not there and Rd1xd5 wins the queen (not a legal chess move on the checked boards, so only the
    quiet boards propose it). With every proposing board an attacked one the capture is never
    proposed; with at most half of them attacked it is."""
    attacked = boards_of(*[QUEEN_HANGS_KNIGHT_CHECKS] * 30)
    others = boards_of(*[QUEEN_HANGS] * 70)
    assert all(our_king_attacked(b) for b in attacked) and not any(our_king_attacked(b) for b in others)
    config = MoveConfig(proposal_attacked_share=share)
    legal = set(actions(attacked + others))
    rng = np.random.default_rng(0)
    candidates = propose(Tiers(attacked, [], others), 100, legal, Counter(), scorer, config, 2.0, rng)
    assert chess.Move.from_uci("g2h3") in candidates  # the check's escape by capture, proposed either way
    assert (chess.Move.from_uci("d1d5") in candidates) is proposed


def test_near_the_100_ply_rule_every_pawn_push_is_a_candidate(scorer: Scorer) -> None:
    """A won rook ending against a lone king on one of ten squares, 60 plies without progress: with the
    progress bonus and ``move.progress_pushes`` every push of our pawns is scored, whatever the engine
    proposed (session 37: a bishop and two pawns against a lone king drawn by the rule, the winning push
    never a candidate)."""
    boards = []
    for square in ("d5", "d6", "c6", "e6", "c5", "e5", "d7", "c7", "e7", "b6"):
        board = chess.Board("8/8/8/8/8/8/PP4PP/R3K3 w - - 60 100")
        board.set_piece_at(chess.parse_square(square), chess.Piece(chess.KING, chess.BLACK))
        boards.append(board)
    pushes = pawn_pushes(boards[0], set(actions(boards)))
    assert [m.uci() for m in pushes] == ["a2a3", "a2a4", "b2b3", "b2b4", "g2g3", "g2g4", "h2h3", "h2h4"]
    config = MoveConfig(progress_pushes=True)
    decision = choose_move(boards, actions(boards), scorer, config, 2.0, np.random.default_rng(0), 60.0)
    assert set(pushes) <= {c.move for c in decision.candidates}


def test_the_fixed_cost_is_the_least_of_the_last_probes(scorer: Scorer) -> None:
    """A probe the scheduler interrupts (here: 1 s before the engine answers) reads many times the
    fixed cost. Measured once (``engine.fixed_cost_probes=1``), that reading stays for the game; with
    ``engine.fixed_cost_probes=3`` the next probes replace it (two, as a loaded machine interrupts some
    honest probes too), and only the last three count."""
    engine = scorer.engine
    assert engine is not None
    answer = engine.evaluate

    def interrupted(*args: object, **kwargs: object) -> list[float]:
        time.sleep(1.0)
        return answer(*args, **kwargs)  # type: ignore[arg-type]

    once = Scorer(engine, EngineConfig(fixed_cost_probes=1))
    windowed = Scorer(engine, EngineConfig(fixed_cost_probes=3))
    engine.evaluate = interrupted  # type: ignore[method-assign]
    try:
        spiked = once.measure_fixed_cost()
        windowed.probe_fixed_cost()
    finally:
        engine.evaluate = answer  # type: ignore[method-assign]
    assert spiked >= 1.0 / Scorer.PROBE_SEARCHES and windowed.measure_fixed_cost() >= spiked / 2
    windowed.probe_fixed_cost()
    windowed.probe_fixed_cost()
    assert windowed.measure_fixed_cost() < spiked / 5 and once.measure_fixed_cost() == spiked
    windowed.probe_fixed_cost()  # the interrupted probe is the oldest of the three: forgotten
    assert len(windowed.fixed_cost_probes) == 3 and max(windowed.fixed_cost_probes) < spiked / 2
