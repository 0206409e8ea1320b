# Ad hoc record script of session 33's loss analysis, kept as it ran.
"""At one of our turns (log numbering), after the opponent's move (before the sense): the boards where
our king is attacked, grouped by attacking piece and square, and the share. usage: attackers.py NAME TURN"""

import sys
from collections import Counter

import chess
from reconchess import GameHistory

sys.path.insert(0, "scripts")
import contextlib

from losses import games

from rbc_bot.replay.resim import resimulate

name, turn = sys.argv[1], int(sys.argv[2])
r = games()[(name[:3], int(name[4:8]), name[8])]
color = name.endswith("W")
h = GameHistory.from_file(r["replay"])
out = {}


def observe(t, stage, tracker):
    if t.turn_number + 1 != turn:
        return
    boards = tracker.boards() if tracker.live_size <= 20000 else tracker.sample(20000)
    c = Counter()
    n = 0
    for b in boards:
        b.turn = color
        k = b.king(color)
        att = b.attackers(not color, k) if k is not None else []
        if att:
            n += 1
            c[
                " ".join(sorted(f"{b.piece_at(s).symbol()}{chess.square_name(s)}" for s in att))
                + f" K{chess.square_name(k)}"
            ] += 1
    out[stage] = (len(boards), n, c.most_common(8))
    if stage == "sense":
        raise KeyboardInterrupt


with contextlib.suppress(KeyboardInterrupt):
    resimulate(h, color, observe=observe, seconds=150)
for stage, (n, a, c) in out.items():
    print(name, f"t{turn}", stage, "boards", n, "king attacked", a, f"({a / max(n, 1):.3f})", c)
