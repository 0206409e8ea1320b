"""On the turns where the belief first passes 1,000 boards, was the sense unlucky or blind?

Usage: python sense_luck.py RUN_DIR [RUN_DIR ...]

Why (session 48): ``blowups.py`` found that where the belief first passes 1,000 boards (from 101-1,000
at our previous turn), our sense kept a median quarter of the boards, where it keeps 7 % on the turns
that stay. Either the sense chose well and the truth fell in a large group (unlucky), or no centre
could have cut the belief much (blind), or a better centre was there (a worse choice). Each game of
ours is re-simulated from its observations (``rbc_bot.replay.resim``, which scores every inner centre
by the boards its sense is expected to remove, the truth drawn uniformly); per such turn: the share
the chosen centre was expected to keep, the share the best centre was expected to keep, and the share
actually kept; and the same over every turn that began (after the opponent's move) with more than 1,000
boards, where no selection on the outcome biases the share kept. Of a trial only the control arm is
read. No engine. Last, per sense rule (from our turn log), how many of those turns it chose and on how
many its centre was 5 points or more worse than the best.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from blowups import LARGE, default_games, passes
from turn_logs import check_runs, our_turns

from rbc_bot.replay.load import load_game
from rbc_bot.replay.resim import TurnBelief, resimulate


def large_turns(path: Path) -> tuple[list[TurnBelief], list[TurnBelief]]:
    """Our turns of the game at ``path`` (re-simulated) whose belief after the sense first passes
    ``LARGE`` boards (``blowups.passes``); and every turn that began with
    more than ``LARGE`` boards. Only turns with the centres' expected eliminations."""
    game = load_game(path)
    if game.our_color is None:
        return [], []
    turns = [
        turn
        for turn in resimulate(game.history, game.our_color).turns
        if turn.sense_expected is not None and turn.best_sense_expected is not None
    ]
    passing = [
        turn
        for before, turn in itertools.pairwise(turns)
        if passes(before.size_after_sense, turn.size_after_sense)
    ]
    return passing, [turn for turn in turns if turn.size_after_opponent > LARGE]


def worse_than_best(turn: TurnBelief) -> bool:
    """Whether the chosen centre was expected to keep 5 points or more of the boards above the best."""
    return ((turn.best_sense_expected or 0) - (turn.sense_expected or 0)) / turn.size_after_opponent >= 0.05


def by_rule(turns: list[tuple[str, TurnBelief]]) -> str:
    """Per sense rule: its turns, and those on which its centre was worse than the best."""
    chose = Counter(rule for rule, _ in turns)
    worse = Counter(rule for rule, turn in turns if worse_than_best(turn))
    return ", ".join(f"{rule} {n} (worse {worse[rule]})" for rule, n in chose.most_common())


def describe(turns: list[TurnBelief]) -> str:
    """The chosen and the best centre's expected share kept, the share kept, and how often each
    departs from the other."""
    chosen = [1 - (t.sense_expected or 0) / t.size_after_opponent for t in turns]
    best = [1 - (t.best_sense_expected or 0) / t.size_after_opponent for t in turns]
    kept = [t.size_after_sense / t.size_after_opponent for t in turns]
    worse = sum(worse_than_best(t) for t in turns)
    unlucky = sum(k - c >= 0.1 for k, c in zip(kept, chosen, strict=True))
    return (
        f"{len(kept)} turns: the chosen centre expected to keep a median {statistics.median(chosen):.1%}, "
        f"the best centre {statistics.median(best):.1%}; kept {statistics.median(kept):.1%}. "
        f"Chosen 5 points or more above the best on {worse}; kept 10 points or more above the chosen's "
        f"expectation on {unlucky}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Sense luck where the belief passes 1,000 boards.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    passing: list[TurnBelief] = []
    large: list[TurnBelief] = []
    ruled: tuple[list[tuple[str, TurnBelief]], list[tuple[str, TurnBelief]]] = ([], [])
    runs = parser.parse_args().runs
    check_runs(runs, parser.prog)
    for run, result in default_games(runs):
        replay = run / Path(result["replay"]).name
        if replay.exists():
            found = large_turns(replay)
            passing += found[0]
            large += found[1]
            rules = {t["turn"]: t.get("sense_rule") or "none" for t in our_turns(run, result)}
            for kept, turns in zip(ruled, found, strict=True):
                kept += [(rules.get(t.turn + 1, "no log"), t) for t in turns]  # logs count from 1
    if not passing:
        sys.exit("sense_luck.py: error: no turn passed 1,000 boards in the games given")
    print(f"passed {LARGE}: {describe(passing)}")
    print(f"every turn from over {LARGE}: {describe(large)}")
    print(f"by sense rule, passed {LARGE}: {by_rule(ruled[0])}")
    print(f"by sense rule, every turn from over {LARGE}: {by_rule(ruled[1])}")


if __name__ == "__main__":
    main()
