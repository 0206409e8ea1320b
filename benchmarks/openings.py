"""Our bot's openings in a match, by result: its first moves and its first queen move per game.

Usage: python benchmarks/openings.py RUN_DIR [RUN_DIR ...] [--moves 6] [--by 5]
(the --out folders of `run_bot.py match` or `gauntlet`, or kept records with their losses/ replays)

Why: an early queen sortie is fine on the boards we believe and exposed to attacks we do not see, the
pattern a strong opponent punishes (issue 11's hypotheses b and e). Before changing the opening, this
counts how the games where our queen moved by turn ``--by`` (0-based, as in the replays) ended against
the others. It counts, it does not prove: a queen may move early because the game already went wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import chess
from reconchess import GameHistory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rbc_bot.runner import game_points


@dataclass(frozen=True)
class Opening:
    seed: int
    color: str
    points: float
    moves: list[str]  # our first moves ("--" for a pass)
    first_queen: tuple[int, str] | None  # (turn, move) of our first queen move


def opening_of(record: dict, replay: Path, moves: int) -> Opening:
    """Our side's opening in one recorded game."""
    history = GameHistory.from_file(str(replay))
    us = chess.WHITE if record["a_color"] == "white" else chess.BLACK
    played: list[str] = []
    first_queen = None
    for turn in history.turns(us):
        move = history.taken_move(turn)
        if turn.turn_number < moves:
            played.append(move.uci() if move else "--")
        if first_queen is None and move is not None:
            board = history.truth_board_before_move(turn)  # replays the game: only until the queen moved
            if board.piece_type_at(move.from_square) == chess.QUEEN:
                first_queen = (turn.turn_number, move.uci())
    points = game_points(record, record["a_color"])
    return Opening(int(record["seed"]), record["a_color"], points, played, first_queen)


def beside(run: Path, recorded: str | None) -> Path | None:
    """The file a record names (a replay or a turn log) where it lies now: beside the run's
    results.jsonl or in its losses/ (kept records hold only the losses' files), else None."""
    name = Path(recorded or "").name
    return next((p for p in (run / name, run / "losses" / name) if name and p.is_file()), None)


def require_match_folders(script: str, runs: list[Path]) -> None:
    """Exit with one line on stderr unless every run is a match folder (holds results.jsonl)."""
    bad = [run for run in runs if not (run / "results.jsonl").is_file()]
    if bad:
        sys.exit(f"{script}: error: not a match folder (no results.jsonl): {bad[0]}")


def recorded_games(runs: list[Path]) -> tuple[list[tuple[Path, dict, Path]], int]:
    """(run, record, replay) of every recorded game whose replay is still there, and how many records
    had none (a count over kept records, which hold only the losses' replays, is biased)."""
    games, missing = [], 0
    for run in runs:
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            replay = beside(run, record.get("replay"))
            if replay is not None:
                games.append((run, record, replay))
            else:
                missing += 1
    return games, missing


def load(runs: list[Path], moves: int) -> tuple[list[Opening], int]:
    """The openings of every recorded game whose replay is still there, and how many had none."""
    games, missing = recorded_games(runs)
    return [opening_of(record, replay, moves) for _, record, replay in games], missing


def report(openings: list[Opening], by: int) -> list[str]:
    """One line per game, then the score of the games with a queen move by turn ``by`` and without."""
    lines = []
    for o in sorted(openings, key=lambda o: (o.seed, o.color)):
        queen = f"queen {o.first_queen[1]} at turn {o.first_queen[0]}" if o.first_queen else "no queen move"
        lines.append(f"{o.seed} {o.color:5} {o.points:.1f}  {' '.join(o.moves):40}  {queen}")
    early = [o for o in openings if o.first_queen and o.first_queen[0] <= by]
    late = [o for o in openings if not (o.first_queen and o.first_queen[0] <= by)]
    for name, group in ((f"queen moved by turn {by}", early), ("the others", late)):
        score = sum(o.points for o in group)
        share = f" ({score / len(group):.0%})" if group else ""
        lines.append(f"{name}: {len(group)} games, {score:.1f} points{share}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description="Our openings in a match, by result.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--moves", type=int, default=6, help="our first moves shown per game")
    parser.add_argument("--by", type=int, default=5, help="a queen move by this turn (0-based) is early")
    args = parser.parse_args()
    require_match_folders("openings.py", args.runs)
    openings, missing = load(args.runs, args.moves)
    if not openings:
        sys.exit(f"openings.py: error: no replays beside results.jsonl in {args.runs[0]}")
    for line in report(openings, args.by):
        print(line)
    if missing:
        print(f"left out: {missing} recorded games without their replay (the counts above are biased)")


if __name__ == "__main__":
    main()
