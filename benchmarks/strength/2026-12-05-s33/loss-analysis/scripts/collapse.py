# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501, SIM115, B007
"""From analyze's summary.json (engine evals of the true board) find where each loss collapsed:
strict: first turn from which our eval stays <= -300; lenient: <= -300 there and never > -200 after.
Prints the per-turn evals around it plus analyze's decisive moment. usage: collapse.py NAME..."""

import json
import sys

MATE = 10000


def ours(e, white):
    if e is None:
        return None
    return e if white else -e


for name in sys.argv[1:]:
    d = json.load(open(f"an-{name}/summary.json"))
    white = name.endswith("W")
    pt = [p for p in d["per_turn"] if p["color"] == ("white" if white else "black")]
    ev = [(p["turn"] + 1, ours(p.get("eval_white"), white), p) for p in pt]
    strict = lenient = None
    for i, (t, e, p) in enumerate(ev):
        rest = [x[1] for x in ev[i:] if x[1] is not None]
        if e is not None and strict is None and all(r <= -300 for r in rest):
            strict = t
        if e is not None and lenient is None and e <= -300 and all(r <= -200 for r in rest):
            lenient = t
    dec = d.get("decisive") or {}
    print(
        f"== {name}: collapse strict t{strict} lenient t{lenient}; analyze decisive t{(dec.get('turn') or -1) + 1} {dec.get('kind')}"
    )
    print("   ", dec.get("text"))
    print(
        "   truth always in belief:",
        d.get("truth_always_in_belief"),
        "| belief",
        {
            k: v
            for side in d["belief"].values()
            for k, v in side.items()
            if k in ("first_truth_lost", "truth_lost_turns", "max_size_after_opponent", "stopped")
        }
        if d.get("belief")
        else None,
    )
    line = []
    for t, e, p in ev:
        mark = "*" if t in (strict, lenient) else ""
        line.append(
            f"t{t}{mark}:{'-' if e is None else int(e)}"
            + (
                f"[{p['kind'][0]}{int(p['cp_loss'] or 0)} h{p.get('hang_share') or 0:.2f}]"
                if p.get("kind")
                else ""
            )
        )
    print("   " + " ".join(line))
