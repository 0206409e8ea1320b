# Ad hoc record script of session 33's loss analysis, kept as it ran.
"""First moves (true, taken) of every game of both rows (index < 36), our colour marked, with result."""

import sys

import chess
from reconchess import GameHistory

sys.path.insert(0, "scripts")
from losses import games

for k, r in sorted(games().items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][0])):
    h = GameHistory.from_file(r["replay"])
    b = chess.Board()
    san = []
    for t in h.turns():
        if not h.has_move(t):
            break
        m = h.taken_move(t)
        if m is None:
            san.append("--")
            b.push(chess.Move.null())
        else:
            try:
                san.append(b.san(m))
            except Exception:
                san.append(m.uci())
            b.push(m)
        if len(san) >= 16:
            break
    print(f"{k[0]}-{k[1]}{k[2]} {r['res']} {r['plies']:>3} " + " ".join(san))
