"""How often the danger rule's threat was real: on each of our turns whose sense the danger rule chose,
was our king attacked on the true board (before our sense), against the share of believed boards
where it was (the turn log's ``danger_share``)? Over the games of the given match or trial folders
(a trial's control arm only: the default). Usage: danger_truth.py RUN_DIR ..."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reconchess import GameHistory, Turn


def main() -> None:
    rows = []
    for run in map(Path, sys.argv[1:]):
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            if record.get("arm", "control") != "control":
                continue
            ours = record["a_color"]
            log_path = (record.get("turn_logs") or {}).get(ours)
            if not log_path:
                continue
            log, replay = run / Path(log_path).name, run / Path(record["replay"]).name
            if not log.exists() or not replay.exists():
                continue
            history = GameHistory.from_file(str(replay))
            color = ours == "white"
            for row in map(json.loads, log.read_text().splitlines()):
                if row.get("sense_rule") != "danger":
                    continue
                board = history.truth_board_before_move(Turn(color, row["turn"] - 1))
                true_attacked = board.is_attacked_by(not color, board.king(color))
                rows.append((row["belief"]["after_opponent"][0], row.get("danger_share"), true_attacked))
    bands = [(1, 150), (151, 1000), (1001, 10**9)]
    for lo, hi in bands:
        sel = [r for r in rows if lo <= r[0] <= hi]
        if not sel:
            continue
        real = sum(r[2] for r in sel)
        share = sum(r[1] or 0 for r in sel) / len(sel)
        print(
            f"beliefs {lo}-{hi}: {len(sel)} danger senses, threat real on {real} ({real / len(sel):.0%}); "
            f"mean attacked share of the boards {share:.0%}"
        )
        for cut in (0.02, 0.05, 0.1, 0.2):
            low = [r for r in sel if (r[1] or 0) < cut]
            if low:
                print(f"   attacked share < {cut:.0%}: {len(low)} senses, real on {sum(r[2] for r in low)}")


if __name__ == "__main__":
    main()
