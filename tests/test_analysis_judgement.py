"""Move judgement on hand-built positions and beliefs, with real Stockfish at fixed node limits.

Each mistake kind gets a case built so that its answer is known by chess alone: a queen moved onto a
pawn's capture square on every believed board (blunder), a king capture tried when the king stands on
the target in 60 % of the believed boards and next to it in the rest (gamble), a quiet pawn move
while the queen is attacked by a knight on one believed board in twenty (unseen threat), and a quiet
king capture tried where the king stands on one of three squares, a third of the boards each (no good
move: each square's capture misses on the other two thirds).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chess
import chess.engine
import pytest

from rbc_bot.engine import KING_CAPTURE_SCORE
from rbc_bot.replay.decisive import decisive, loss_text, turning_mistake
from rbc_bot.replay.judge import BLUNDER_CP, BoardJudgement, Searcher, judge_board
from rbc_bot.replay.mistakes import MoveScore, judge_alternatives, judge_belief, judged_weights, move_score

NODES = 20_000


@pytest.fixture(scope="module")
def searcher() -> Iterator[Searcher]:
    with Searcher(workers=2, nodes=NODES) as engines:
        yield engines


def board(fen: str) -> chess.Board:
    b = chess.Board(fen)
    assert b.king(chess.WHITE) is not None and b.king(chess.BLACK) is not None
    return b


def judge_case(
    searcher: Searcher,
    truth: chess.Board,
    believed: list[chess.Board],
    request: str,
    weights: str = "uniform",
) -> MoveScore:
    move = chess.Move.from_uci(request)
    truth_j, *judged = searcher.judge([(truth, move)] + [(b, move) for b in believed])
    (others,) = judge_alternatives(searcher, [move], [truth_j], [judged], [believed], None, weights)
    return move_score(chess.WHITE, 7, move, truth_j, judged, others, weights)


def test_a_move_equal_to_the_best_loses_nothing(searcher: Searcher) -> None:
    positions = [
        chess.Board(),
        board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"),
        board("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1"),
    ]
    best = [j.best for j in searcher.judge([(b, None) for b in positions])]
    again = searcher.judge([(b, m) for b, m in zip(positions, best, strict=True)])
    for b, first, judged in zip(positions, best, again, strict=True):
        assert first is not None and judged.taken == first and judged.best == first, b.fen()
        assert judged.loss == 0.0 and judged.played_score == judged.best_score
    # Node-limited and a new game per search: the same question gets the same answer.
    assert [j.best_score for j in searcher.judge([(b, m) for b, m in zip(positions, best, strict=True)])] == [
        j.best_score for j in again
    ]


def test_best_and_played_come_from_one_search() -> None:
    """When the played move is not the best, one search restricted to exactly the two values both."""
    calls: list[dict[str, Any]] = []
    b, e4, h3 = chess.Board(), chess.Move.from_uci("e2e4"), chess.Move.from_uci("g1h3")

    def line(move: chess.Move, cp: int) -> chess.engine.InfoDict:
        return {"pv": [move], "score": chess.engine.PovScore(chess.engine.Cp(cp), chess.WHITE)}

    def fake(safe: chess.Board, **kwargs: Any) -> list[chess.engine.InfoDict]:
        calls.append(kwargs)
        if kwargs.get("root_moves"):
            return [line(e4, 30), line(h3, -60)]
        return [line(e4, 35)]  # the unrestricted search: a different value of e4, not used for the loss

    judged = judge_board(fake, b, h3)
    assert calls == [{"multipv": 1}, {"multipv": 2, "root_moves": [e4, h3]}]
    assert (judged.best, judged.best_score, judged.played_score, judged.loss) == (e4, 30, -60, 90)
    calls.clear()
    assert judge_board(fake, b, e4).loss == 0 and calls == [{"multipv": 1}]


def test_blunder_bad_on_every_believed_board(searcher: Searcher) -> None:
    # Qd1-h5 on every board: the g6 pawn takes the queen. Black's knight stands anywhere harmless.
    boards = [board(f"{rank8}/5p1p/6p1/8/8/8/5PPP/3Q2K1 w - - 0 1") for rank8 in ("n5k1", "1n4k1", "2n3k1")]
    boards += [
        board(f"6k1/{rank7}/6p1/8/8/8/5PPP/3Q2K1 w - - 0 1") for rank7 in ("n4p1p", "1n3p1p", "2n2p1p")
    ]
    score = judge_case(searcher, boards[0], boards, "d1h5")
    assert score.cp_loss >= BLUNDER_CP and score.is_mistake
    assert score.belief is not None and score.belief.boards == len(boards)
    assert score.belief.bad_share == 1.0 and score.belief.hang_share == 1.0
    # The boards' own best move, asked for instead, lost far less: the player could have known.
    assert score.belief.alternative is not None and score.belief.alternative_loss is not None
    assert score.belief.alternative_loss <= score.belief.expected_loss - 100
    assert score.belief.expected_loss >= BLUNDER_CP
    assert score.kind == "blunder"


def test_gamble_a_king_capture_that_missed(searcher: Searcher) -> None:
    # Qe1xe8 takes the king where it stands on e8 (6 boards); where it stands on f8 (4 boards, the
    # truth among them) the king or the rook takes the queen.
    e8 = ["r3k3/ppp5", "1r2k3/ppp5", "2r1k3/ppp5", "r3k3/pp6", "1r2k3/pp6", "2r1k3/pp6"]
    f8 = ["r4k2/ppp5", "1r3k2/ppp5", "2r2k2/ppp5", "r4k2/pp6"]
    on_e8 = [board(f"{top}/8/8/8/8/5PPP/4Q1K1 w - - 0 1") for top in e8]
    on_f8 = [board(f"{top}/8/8/8/8/5PPP/4Q1K1 w - - 0 1") for top in f8]
    score = judge_case(searcher, on_f8[0], on_e8 + on_f8, "e1e8")
    assert score.cp_loss >= BLUNDER_CP and score.played == "e1e8"
    assert score.belief is not None
    assert score.belief.king_capture_share == pytest.approx(0.6)
    assert score.belief.bad_share == pytest.approx(0.4) and score.belief.hang_share == pytest.approx(0.4)
    assert score.kind == "gamble"
    # Not trying where the king stands on e8 misses the capture the belief offered on 60 % of the boards.
    passive = judge_case(searcher, on_e8[0], on_e8 + on_f8, "h2h3")
    assert passive.tags == ["king capture missed"] and passive.belief is not None
    assert passive.belief.king_capturable_share == pytest.approx(0.6) and passive.kind == "blunder"
    text = loss_text(passive, len(on_e8 + on_f8))
    assert text.startswith("White lost the game at turn 7: it played h2h3, a blunder")
    assert "On all 10 believed boards" in text and "possible on 60% of the boards it believed" in text
    # h2h3 hangs nothing: on the 6 boards it counts against it, it missed the king the best move takes.
    assert "and 300 cp or more (or the king) on 60% of them" in text
    # Weighed as the bot weighs boards, a board where the opponent left its king capturable is among
    # the least likely (it would not have), so the miss is the likely case: no longer a gamble.
    weighed = judge_case(searcher, on_f8[0], on_e8 + on_f8, "e1e8", weights="likely")
    assert weighed.belief is not None and weighed.belief.king_capture_share < 0.25
    assert weighed.belief.bad_share > 0.75 and weighed.kind in {"blunder", "no_good_move"}
    weighed_text = loss_text(weighed, 10)
    assert (
        "On all 10 believed boards, each weighed by how likely the opponent's play made it, the"
        in weighed_text
    )
    assert "weighed" not in loss_text(score, 10)
    # The same request where the king was there is no mistake at all.
    hit = judge_case(searcher, on_e8[0], on_e8 + on_f8, "e1e8")
    assert (
        hit.eval_after == KING_CAPTURE_SCORE and hit.cp_loss == 0 and not hit.is_mistake and hit.kind is None
    )


# Squares where a black knight neither attacks nor can be taken by White's queen, pawns or king.
KNIGHT_SQUARES = ["a8", "b8", "c8", "a7", "b7", "c7", "e7", "a6", "b6", "c6"]
KNIGHT_SQUARES += ["e6", "a5", "b5", "c5", "e5", "f5", "b4", "f6", "h6"]


def with_knight(square: str) -> chess.Board:
    b = board("6k1/5p1p/6p1/8/8/8/5PPP/3Q2K1 w - - 0 1")  # g6: no back-rank mate
    b.set_piece_at(chess.parse_square(square), chess.Piece(chess.KNIGHT, chess.BLACK))
    return b


def test_unseen_threat_the_true_board_was_rare(searcher: Searcher) -> None:
    # h2-h3 is harmless on 19 boards; on the truth (1 in 20) a knight on c3 attacks the queen.
    truth = with_knight("c3")
    believed = [with_knight(sq) for sq in KNIGHT_SQUARES] + [truth]
    score = judge_case(searcher, truth, believed, "h2h3")
    assert score.cp_loss >= BLUNDER_CP and score.best is not None and score.best.startswith("d1")
    assert score.belief is not None and score.belief.bad_share == pytest.approx(1 / 20)
    assert score.belief.expected_loss < score.cp_loss / 5
    assert score.kind == "unseen_threat"
    # Had the knight stood on c3 on most boards, the same move would be a blunder.
    common = judge_case(searcher, truth, [truth] * 12 + believed[:8], "h2h3")
    assert common.kind == "blunder"


def with_king(square: str) -> chess.Board:
    """White's queen d4 can take Black's king on ``square`` (a4, d8 and g7 lie on three of its lines)."""
    b = chess.Board("8/8/8/8/3Q4/8/5PPP/6K1 w - - 0 1")
    b.set_piece_at(chess.parse_square(square), chess.Piece(chess.KING, chess.BLACK))
    return board(b.fen())


def test_no_good_move_when_each_board_has_its_own_answer(searcher: Searcher) -> None:
    # Black's king stands on a4, d8 or g7, four boards each: the queen's capture on one square is a
    # quiet move on the other two squares' boards, and no other request does better on average.
    squares = ["a4", "d8", "g7"]
    believed = [with_king(square) for square in squares for _ in range(4)]
    score = judge_case(searcher, believed[0], believed, "d4d8")
    assert score.tags == ["king capture missed"] and score.best == "d4a4"
    assert score.belief is not None and score.belief.bad_share == pytest.approx(2 / 3)
    assert score.belief.alternative in {"d4a4", "d4g7"}
    assert score.belief.alternative_loss == pytest.approx(score.belief.expected_loss)
    assert score.kind == "no_good_move"
    text = loss_text(score, len(believed))
    assert "no good move" in text and f"asked for instead, {score.belief.alternative} lost" in text
    # Where the king stands on a4 on most boards, d4xa4 was there to be found: a blunder.
    mostly_a4 = [with_king("a4")] * 8 + believed[4:]
    common = judge_case(searcher, believed[0], mostly_a4, "d4d8")
    assert common.belief is not None and common.belief.alternative == "d4a4"
    assert common.belief.alternative_loss is not None
    assert common.belief.alternative_loss <= common.belief.expected_loss - 100 and common.kind == "blunder"


def test_king_left_capturable_and_mated_positions(searcher: Searcher) -> None:
    # White's king walks next to Black's queen: capturable. In a mated position no move is a mistake.
    hung = judge_case(searcher, board("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1"), [], "e1e2")
    assert hung.tags == ["king left capturable"] and hung.belief is None and hung.kind is None
    mated = board("4k3/8/8/8/8/8/3q4/3qK3 w - - 0 1")
    assert not any(mated.legal_moves)
    assert not judge_case(searcher, mated, [], "e1f2").is_mistake


def score(turn: int, before: float, after: float, kind: str | None = None, color: str = "black") -> MoveScore:
    tags = ["lost 300+ cp"] if before - after >= BLUNDER_CP else []
    return MoveScore(
        color, turn, "a7a6", "a7a6", "b7b6", before, after, before, max(0.0, before - after), tags, None, kind
    )


def test_decisive_is_the_point_of_no_return() -> None:
    # A blunder the loser recovered from (turn 2), then one it never recovered from (turn 5).
    moves = [score(1, 20, 10), score(2, 10, -400, "blunder"), score(3, 50, 40), score(4, 40, 30)]
    moves += [score(5, 30, -900, "gamble"), score(6, -900, -950), score(7, -950, -960)]
    assert turning_mistake(moves) is moves[4]
    found = decisive(moves, chess.WHITE, [chess.BLACK], {("black", 5): 1234})
    assert found is not None and (found["turn"], found["color"], found["kind"]) == (5, "black", "gamble")
    assert "Black lost the game at turn 5" in found["text"] and "a7a6" in found["text"]
    # Never out of reach: the costliest mistake. No winner: no decisive moment.
    assert (
        turning_mistake([score(1, 0, -350, "blunder"), score(2, 100, -500, "unseen_threat"), score(3, 0, 0)])
        is not None
    )
    assert decisive(moves, None, [chess.BLACK]) is None
    # Lost without a mistake on the true board (on time, say): said so, with no kind.
    calm = decisive([score(1, 0, 0), score(2, 10, 5)], chess.WHITE, [chess.BLACK], reason="TIMEOUT")
    assert calm == {"turn": 2, "color": "black", "kind": None, "text": calm["text"]}
    assert calm["text"] == "Black lost (timeout) with no move judged a mistake on the true board."


def test_decisive_for_the_winner_names_where_it_turned() -> None:
    won = [score(1, 0, 10, color="white"), score(2, 20, 15, color="white"), score(3, 900, 900, color="white")]
    found = decisive(won, chess.WHITE, [chess.WHITE])
    assert found is not None and (found["turn"], found["kind"]) == (3, "opponent_error")
    assert found["text"].startswith(
        "White won the game at turn 3: black's move at turn 2 turned the true board"
    )
    # A game from a won position (``play --fen``): White stood well before anyone moved.
    began = decisive([score(0, 700, 900, color="white"), score(1, 900, 950, color="white")], True, [True])
    assert began is not None and began["text"].startswith(
        "White won the game at turn 0: the game began at +700 cp for white, and white played a7a6"
    )
    capture = [score(1, 0, 10, color="white"), score(2, 20, KING_CAPTURE_SCORE, color="white")]
    found = decisive(capture, chess.WHITE, [chess.WHITE])
    assert found is not None and (found["turn"], found["kind"]) == (2, "winning_move")


def test_likely_weights_count_the_boards_worst_for_the_mover_most() -> None:
    """Five boards, one a fifth each from the worst for the mover to the best (where it could take the
    king): weights 3.25, 0.8, 0.5, 0.3 and 0.15 (rbc_bot.likely). A move losing 400 cp on the worst
    board alone is bad on a fifth of them counted alike, and on 3.25 / 5 of them weighed."""
    best = [-300.0, -100.0, 0.0, 100.0, float(KING_CAPTURE_SCORE)]
    losses = [400.0, 0.0, 0.0, 0.0, 0.0]
    judged = [
        BoardJudgement(None, b, None, b - loss, False, False) for b, loss in zip(best, losses, strict=True)
    ]
    assert judged_weights(judged, "likely").tolist() == [3.25, 0.8, 0.5, 0.3, 0.15]
    assert judged_weights(judged).tolist() == [1.0] * 5
    uniform = judge_belief(judged, true_loss=400.0)
    likely = judge_belief(judged, true_loss=400.0, weights="likely")
    assert uniform is not None and likely is not None
    assert uniform.bad_share == pytest.approx(0.2) and uniform.expected_loss == pytest.approx(80.0)
    assert likely.bad_share == pytest.approx(0.65) and likely.expected_loss == pytest.approx(260.0)
    assert likely.king_capturable_share == pytest.approx(0.03)
    with pytest.raises(ValueError, match="unknown board weights 'even'"):
        judged_weights(judged, "even")


def test_board_judgement_loss_is_never_negative() -> None:
    j = BoardJudgement(None, 10.0, None, 50.0, False, False)
    assert j.loss == 0.0


@pytest.mark.parametrize(("flag", "value"), [("--belief-boards", "-1"), ("--belief-nodes", "0")])
def test_bad_judgement_flags_are_refused_in_one_line(
    flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from rbc_bot.cli import main

    assert main(["analyze", "no-such-game.json", flag, value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "Traceback" not in err
