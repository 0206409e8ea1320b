# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501, E741, SIM115
"""Per-turn timeline of one side of a game: truth (material, check, what the opponent took) beside our
turn log (belief sizes, sense, rule, danger share, chosen move and its worst/mean). Engine-free.
usage: timeline.py NAME REPLAY [COLOR]   -> prints; NAME like new-1051W"""

import json
import sys

import chess
from reconchess import GameHistory

VAL = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def material(board, color):
    s = 0
    for p in board.piece_map().values():
        s += VAL[p.piece_type] * (1 if p.color == color else -1)
    return s


def load_log(path):
    out = {}
    try:
        for l in open(path + ".turns.jsonl"):
            d = json.loads(l)
            out[d["turn"]] = d
    except FileNotFoundError:
        pass
    return out


def captured(history, turn):
    """(piece symbol, square) the move of ``turn`` captured on the true board, or None."""
    if not history.has_move(turn):
        return None
    sq = history.capture_square(turn)
    if sq is None:
        return None
    before = history.truth_board_before_move(turn)
    p = before.piece_at(sq)
    return (p.symbol() if p else "?", chess.square_name(sq))


def timeline(path, color):
    h = GameHistory.from_file(path)
    log = load_log(path)
    rows = []
    for t in h.turns(color):
        n = t.turn_number + 1
        lg = log.get(n, {})
        truth = h.truth_board_before_move(t) if h.has_move(t) or h.has_sense(t) else None
        prev = None if h.is_first_turn(t) else t.previous
        opp_move = h.taken_move(prev) if prev is not None and h.has_move(prev) else None
        opp_cap = captured(h, prev) if prev is not None else None
        nxt = t.next
        nxt_move = h.taken_move(nxt) if h.has_move(nxt) else None
        nxt_cap = captured(h, nxt)
        ch = None
        for c in lg.get("candidates", []):
            if c["move"] == lg.get("chosen_move"):
                ch = c
        b = lg.get("belief", {})
        row = dict(
            turn=n,
            opp=opp_move.uci() if opp_move else "-",
            opp_took=opp_cap,
            check=bool(truth is not None and truth.is_attacked_by(not color, truth.king(color)))
            if truth is not None and truth.king(color) is not None
            else None,
            bal=material(truth, color) if truth is not None else None,
            b_opp=b.get("after_opponent", [None])[0],
            b_sense=b.get("after_sense", [None])[0],
            rule=lg.get("sense_rule"),
            sense=lg.get("sense_square"),
            ds=lg.get("danger_share"),
            req=h.requested_move(t).uci() if h.has_move(t) and h.requested_move(t) else "pass",
            taken=h.taken_move(t).uci() if h.has_move(t) and h.taken_move(t) else "pass",
            we_took=captured(h, t),
            worst=ch["worst"] if ch else None,
            mean=ch["mean"] if ch else None,
            reason=lg.get("move_reason"),
            scored=lg.get("boards_scored"),
            clock=lg.get("seconds_left"),
            next_opp=nxt_move.uci() if nxt_move else "-",
            next_took=nxt_cap,
            depth=lg.get("depth"),
        )
        rows.append(row)
    return h, rows


def fmt(r):
    def f(x):
        return "-" if x is None else x

    def took(c):
        return f"x{c[0]}@{c[1]}" if c else ""

    return (
        f"t{r['turn']:>3} opp {r['opp']:<6}{took(r['opp_took']):<8} {'CHECK ' if r['check'] else '      '}"
        f"bal {f(r['bal']):>3} bel {f(r['b_opp']):>6}>{f(r['b_sense']):<6} {f(r['rule']):<13} {f(r['sense']):<3} "
        f"ds {f(r['ds']) if r['ds'] is None else round(r['ds'], 3):<6} move {r['req']:<6}->{r['taken']:<6}{took(r['we_took']):<7} "
        f"w {f(r['worst']):>8} m {f(r['mean']):>8} {f(r['reason']):<14} sc {f(r['scored']):>4} clk {f(r['clock'])} "
        f"| reply {r['next_opp']} {took(r['next_took'])}"
    )


if __name__ == "__main__":
    name, path = sys.argv[1], sys.argv[2]
    color = chess.WHITE if name.endswith("W") else chess.BLACK
    h, rows = timeline(path, color)
    print(name, path)
    for r in rows:
        print(fmt(r))
