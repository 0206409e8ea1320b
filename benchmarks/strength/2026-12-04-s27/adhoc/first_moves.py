"""Our score against StrangeFish by first moves: as Black by (White's first move, ours) and by White's
first move alone, as White by ours. Usage: python first_moves.py MATCH_DIR ..."""

import json
import sys
from collections import defaultdict
from pathlib import Path


def first_move(taken: dict, side: str) -> str | None:
    """The first move ``side`` ("true" is White) took in a replay, or None."""
    moves = taken[side]
    return (moves[0] or {}).get("value") if moves else None


tables: dict[str, defaultdict] = {
    name: defaultdict(lambda: [0, 0.0]) for name in ("black", "their first", "white")
}
for folder in sys.argv[1:]:
    for line in (Path(folder) / "results.jsonl").read_text().splitlines():
        result = json.loads(line)
        replay = Path(folder) / Path(result.get("replay") or "missing").name
        if not replay.exists():
            continue
        taken = json.loads(replay.read_text())["taken_moves"]
        score = 0.5 if result["winner"] is None else float(result["winner"] == result["a_color"])
        if result["a_color"] == "black":
            keys = {
                "black": (first_move(taken, "true"), first_move(taken, "false")),
                "their first": first_move(taken, "true"),
            }
        else:
            keys = {"white": first_move(taken, "true")}
        for name, key in keys.items():
            tables[name][key][0] += 1
            tables[name][key][1] += score
for name, table in tables.items():
    print(name)
    for key, (games, points) in sorted(table.items(), key=lambda item: -item[1][0]):
        if games >= 3:
            print(f"  {key}: {games} games, {points:.1f} ({100 * points / games:.0f}%)")
