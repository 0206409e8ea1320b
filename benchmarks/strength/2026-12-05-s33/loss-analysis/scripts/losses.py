# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E741, SIM115
"""List the loss games (index < 36) and the discordant partner games of both rows."""

import json

RUNS = {"new": "/work/runs/g-sf-lwmix3-32", "ctl": "/work/runs/g-sf-ctl30"}
VAL = {1: 1, 2: 3, 3: 3, 4: 5, 5: 9, 6: 0}


def played(r):
    """Our colour, the game's history and our turn log by turn number."""
    from reconchess import GameHistory

    log = {json.loads(l)["turn"]: json.loads(l) for l in open(next(iter(r["turn_logs"].values())))}
    return r["a_color"] == "white", GameHistory.from_file(r["replay"]), log


def games():
    out = {}
    for tag, d in RUNS.items():
        for l in open(f"{d}/results.jsonl"):
            r = json.loads(l)
            if r["index"] >= 36:
                continue
            res = "W" if r["winner"] == r["a_color"] else ("D" if r["winner"] is None else "L")
            out[(tag, r["seed"], r["a_color"][0].upper())] = dict(r, res=res)
    return out


if __name__ == "__main__":
    g = games()
    for k, r in sorted(g.items()):
        if r["res"] == "L":
            print(f"{k[0]}-{k[1]}{k[2]}", r["replay"])
