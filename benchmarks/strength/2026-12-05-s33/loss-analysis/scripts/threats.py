# Ad hoc record script of session 33's loss analysis, kept as it ran.
"""Engine-free re-simulation of our belief (rbc_bot.replay.resim) with, per turn, after our sense:
 n: live boards; truth: true board live (L) / stashed (S) / lost (-);
 chk: share of boards where our king is attacked (before our move);
 rep: share of boards (our taken move applied) where the opponent's actual next move is pseudo-legal;
 att: share where the square the opponent then captured on is attacked by it (after our move);
 pre: share where that square was attacked before our move (piece already en prise).
usage: threats.py NAME REPLAY > out"""

import sys

import chess
import numpy as np
from reconchess import GameHistory

from rbc_bot.replay.resim import resimulate

name, path = sys.argv[1], sys.argv[2]
color = chess.WHITE if name.endswith("W") else chess.BLACK
h = GameHistory.from_file(path)
rng = np.random.default_rng(0)
info = {}


def observe(turn, stage, tracker):
    if stage != "sense":
        return
    truth = h.truth_board_before_move(turn)
    boards = tracker.sample(3000, rng)
    n = len(boards)
    mv = h.taken_move(turn) if h.has_move(turn) else None
    nxt = turn.next
    opp = h.taken_move(nxt) if h.has_move(nxt) else None
    capsq = h.capture_square(nxt) if h.has_move(nxt) else None
    chk = rep = att = pre = 0
    for b in boards:
        b.turn = color
        k = b.king(color)
        if k is not None and b.is_attacked_by(not color, k):
            chk += 1
        if capsq is not None and b.is_attacked_by(not color, capsq):
            pre += 1
        try:
            if mv is not None and b.is_pseudo_legal(mv):
                b.push(mv)
            else:
                b.push(chess.Move.null())
        except Exception:
            continue
        if opp is not None and b.is_pseudo_legal(opp):
            rep += 1
        if capsq is not None and b.is_attacked_by(not color, capsq):
            att += 1
    live = tracker.contains(truth)
    info[turn.turn_number + 1] = dict(
        n=tracker.live_size,
        live=live,
        chk=chk / max(n, 1),
        rep=rep / max(n, 1),
        att=(att / max(n, 1)) if capsq is not None else None,
        pre=(pre / max(n, 1)) if capsq is not None else None,
        opp=opp.uci() if opp else "-",
        capsq=chess.square_name(capsq) if capsq is not None else "",
    )


side = resimulate(h, color, observe=observe, seconds=150)
held = {t.turn + 1: t.truth_after_sense for t in side.turns}
print(name, "error:", side.error)
for t, d in sorted(info.items()):
    tr = "L" if d["live"] else ("S" if held.get(t) else "-")
    a = "" if d["att"] is None else f"att {d['att']:.3f} pre {d['pre']:.3f} @{d['capsq']}"
    print(f"t{t:>3} n {d['n']:>6} truth {tr} chk {d['chk']:.3f} reply {d['opp']:<6} rep {d['rep']:.3f} {a}")
