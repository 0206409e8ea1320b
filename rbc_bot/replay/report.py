"""Report writers: one game's folder and the folder-mode aggregate (the terminal output: ``terminal``)."""

from __future__ import annotations

import base64
import html
import json
import logging
from collections import defaultdict
from pathlib import Path
from typing import Any

from rbc_bot.replay.analysis import GameAnalysis
from rbc_bot.replay.judge import BLUNDER_CP, MISTAKE_CP
from rbc_bot.replay.pgn import write_pgn
from rbc_bot.replay.plots import write_plots
from rbc_bot.replay.viewer import viewer_html

logger = logging.getLogger(__name__)

COLUMNS = [
    ("color", "side"),
    ("turn", "turn"),
    ("told_capture", "lost piece on"),
    ("size_after_opponent", "boards after opp."),
    ("sense", "sense"),
    ("size_after_sense", "after sense"),
    ("size_after_move", "after move"),
    ("eliminated", "eliminated"),
    ("expected", "expected"),
    ("best_sense", "best sense"),
    ("best_expected", "best expected"),
    ("truth_note", "truth in belief"),
    ("requested", "requested"),
    ("taken", "taken"),
    ("capture", "captured on"),
    ("eval_white", "eval (white)"),
    ("cp_loss", "cp loss"),
    ("best_move", "engine best"),
    ("tags", "mistake"),
    ("kind", "kind"),
    ("expected_loss", "loss on believed"),
    ("bad_share", "bad on believed"),
    ("king_attacked", "king attacked"),
    ("sense_changed_move", "sense changed move"),
    ("bot_belief", "bot's belief (log)"),
    ("seconds", "seconds (log)"),
]


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _pct(value: float | None) -> str | None:
    return None if value is None else f"{value:.0%}"


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def pgn_notes(analysis: GameAnalysis) -> dict[tuple[bool, int], str]:
    notes = {}
    for color, side in analysis.beliefs.items():
        for t in side.turns:
            truth = (
                "TRUTH LOST"
                if not t.truth_kept
                else "truth stashed"
                if t.truth_sampled_away
                else "truth kept"
            )
            notes[color, t.turn] = (
                f"belief {t.size_after_opponent} -> {t.size_after_sense} after sense ({truth})"
            )
    return notes


def write_game(analysis: GameAnalysis, out: Path) -> dict[str, Any]:
    """summary.json, game.pgn, the PNGs and report.html into ``out``; returns the summary."""
    out.mkdir(parents=True, exist_ok=True)
    summary = analysis.summary()
    write_pgn(analysis.game.history, out / "game.pgn", pgn_notes(analysis))
    pngs = write_plots(analysis, out)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=_json_default) + "\n")
    (out / "report.html").write_text(
        game_html(summary, pngs, viewer_html(analysis, summary)), encoding="utf-8"
    )
    return summary


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{html.escape(path.stem)}" src="data:image/png;base64,{data}">'


STYLE = """<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:12px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#eee;position:sticky;top:0}
tr.lost td{background:#fdd} tr.bad td{background:#ffe9c7}
img{max-width:48%;margin:4px;border:1px solid #ddd}
.k{color:#666}
</style>"""


def decisive_text(summary: dict[str, Any]) -> str:
    decisive = summary.get("decisive")
    if decisive:
        return str(decisive["text"])
    if summary["winner"] is None:
        return "No side won: there is no decisive moment."
    if not summary["mistake_stats"]["moves"]:
        return f"No decisive moment: no move was judged (engine: {summary['engine']})."
    return "No decisive moment: the side that lost was not analysed (see --side)."


def game_html(summary: dict[str, Any], pngs: list[Path], viewer: str = "") -> str:
    e = html.escape
    title = f"{summary['white']} (white) vs {summary['black']} (black): {summary['result']}"
    facts = {
        "file": summary["file"],
        "result": f"{summary['result']} ({summary['win_reason'] or 'unfinished'})",
        "turns": summary["turns"],
        "analysed": ", ".join(summary["analysed_sides"]),
        "truth always in belief": fmt(summary["truth_always_in_belief"]),
        "engine": summary["engine"],
        "mistakes": "{mistake_count} of {moves} moves".format(**summary["mistake_stats"]),
        "mean cp loss (clipped 1000)": fmt(summary["mistake_stats"]["mean_cp_loss"]),
    }
    for name, side in summary["belief"].items():
        facts[f"{name} belief"] = (
            f"mean {fmt(side['mean_size_after_sense'])} boards after sense, truth lost on "
            f"{side['truth_lost_turns']} turns (first: {fmt(side['first_truth_lost'])}), "
            f"sense expected {fmt(side['sense_expected_mean'])} "
            f"vs best {fmt(side['best_sense_expected_mean'])}"
            + (f"; {side['stopped']}" if side["stopped"] else "")
        )
    if summary["turn_log"]:
        facts.update({f"log: {k}": fmt(v) for k, v in summary["turn_log"].items()})
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>{STYLE}</head><body>"
    ]
    parts.append(f"<h1>{e(title)}</h1>")
    kind = (summary.get("decisive") or {}).get("kind")
    parts.append(
        f"<p id='decisive' class='decisive'><b>Decisive moment{e(f' ({kind})' if kind else '')}:</b> "
        f"{e(decisive_text(summary))}</p><table>"
    )
    parts += [
        f"<tr><th>{e(k)}</th><td style='text-align:left'>{e(str(v))}</td></tr>" for k, v in facts.items()
    ]
    parts.append("</table>")
    if summary["warnings"]:
        parts.append(
            "<h2>Warnings</h2><ul>" + "".join(f"<li>{e(w)}</li>" for w in summary["warnings"]) + "</ul>"
        )
    parts.append(viewer)
    parts.append("<h2>Plots</h2>" + "".join(_img(p) for p in pngs if p.name != "overview.png"))
    parts.append("<h2>Mistakes</h2>" + mistakes_html(summary["mistakes"]))
    parts.append("<h2>Per turn</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for _, h in COLUMNS) + "</tr>")
    for row in summary["per_turn"]:
        css = "lost" if row["truth"] is False else "bad" if row["tags"] else ""
        parts.append(
            f"<tr class='{css}'>" + "".join(f"<td>{e(fmt(row[k]))}</td>" for k, _ in COLUMNS) + "</tr>"
        )
    parts.append(
        "</table><p class='k'>expected = boards a sense there removes on average over the same belief; "
        "cp loss = engine score of the best move minus the move taken, on the true board, both from one "
        "search; loss on believed = the same over the sampled believed boards (the request revised on each); "
        f"kind: blunder (bad on most believed boards, where another move lost {MISTAKE_CP} cp less on "
        "average), no_good_move (bad on most, and no other move tried did that much better), gamble (bad "
        "on a real share of them, or a king capture that missed), unseen_threat (bad on under 10 %: the "
        "true board was a rare one).</p>"
    )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def mistakes_html(mistakes: list[dict[str, Any]]) -> str:
    """The mistakes table: where, what kind, and the judgement on the true and the believed boards."""
    if not mistakes:
        return "<p>none found</p>"
    e = html.escape
    heads = ["side", "turn", "kind", "what", "requested", "played", "best", "cp loss", "loss on believed"]
    heads += ["bad on believed", f"{BLUNDER_CP}+ cp or king lost on believed"]
    parts = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>"]
    for m in mistakes:
        cells = [m["color"], m["turn"], m["kind"], ", ".join(m["tags"]), m["requested"], m["played"]]
        cells += [m["best"], m["cp_loss"], m["expected_loss"], _pct(m["bad_share"]), _pct(m["hang_share"])]
        parts.append("<tr>" + "".join(f"<td>{e(fmt(c))}</td>" for c in cells) + "</tr>")
    return "".join(parts) + "</table>"


def aggregate(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """Results by player, colour and opponent; belief, truth, time and mistake figures over all games."""
    records: dict[tuple[str, str, str], dict[str, int]] = defaultdict(
        lambda: {"games": 0, "wins": 0, "draws": 0, "losses": 0}
    )
    for s in summaries:
        for color, name, opponent in (("white", s["white"], s["black"]), ("black", s["black"], s["white"])):
            record = records[name, color, opponent]
            record["games"] += 1
            key = "draws" if s["winner"] is None else "wins" if s["winner"] == color else "losses"
            record[key] += 1
    sides = [side for s in summaries for side in s["belief"].values()]
    sizes = [side["mean_size_after_sense"] for side in sides if side["mean_size_after_sense"] is not None]
    turns = sum(side["turns_simulated"] for side in sides)
    lost = sum(side["truth_lost_turns"] for side in sides)
    moves = sum(s["mistake_stats"]["moves"] for s in summaries)
    mistakes = sum(s["mistake_stats"]["mistake_count"] for s in summaries)
    logs = [s["turn_log"] for s in summaries if s["turn_log"]]
    return {
        "games": len(summaries),
        "results": [
            {"player": p, "color": c, "opponent": o, **r, "win_rate": r["wins"] / r["games"]}
            for (p, c, o), r in sorted(records.items())
        ],
        "mean_belief_size": sum(sizes) / len(sizes) if sizes else None,
        "sides_analysed": len(sides),
        "sides_truth_lost": sum(side["truth_always_in_belief"] is False for side in sides),
        "turns_truth_lost_rate": lost / turns if turns else None,
        "moves_scored": moves,
        "mistake_rate": mistakes / moves if moves else None,
        "mean_seconds_per_turn": (
            sum(log["seconds_total"] for log in logs) / sum(log["turns_logged"] for log in logs)
            if logs
            else None
        ),
        "max_seconds_per_turn": max((log["seconds_max"] or 0 for log in logs), default=None),
        "min_seconds_left": min(
            (log["seconds_left_min"] for log in logs if log["seconds_left_min"] is not None), default=None
        ),
    }


def write_aggregate(
    out: Path, entries: list[tuple[dict[str, Any], Path]], bad: list[tuple[Path, str]]
) -> dict[str, Any]:
    """``aggregate.json`` and ``index.html`` (aggregate tables + links to every game's report)."""
    agg = aggregate([s for s, _ in entries])
    agg["bad_files"] = [{"file": str(p), "error": err} for p, err in bad]
    (out / "aggregate.json").write_text(json.dumps(agg, indent=2) + "\n")
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>RBC games</title>{STYLE}</head><body>"]
    parts.append(f"<h1>{agg['games']} games analysed</h1><table>")
    for key in (
        "mean_belief_size",
        "sides_analysed",
        "sides_truth_lost",
        "turns_truth_lost_rate",
        "moves_scored",
        "mistake_rate",
        "mean_seconds_per_turn",
        "max_seconds_per_turn",
        "min_seconds_left",
    ):
        parts.append(f"<tr><th>{e(key.replace('_', ' '))}</th><td>{e(fmt(agg[key]))}</td></tr>")
    parts.append("</table><h2>Results by player, colour and opponent</h2><table><tr>")
    heads = ["player", "color", "opponent", "games", "wins", "draws", "losses", "win_rate"]
    parts.append("".join(f"<th>{h}</th>" for h in heads) + "</tr>")
    for r in agg["results"]:
        parts.append("<tr>" + "".join(f"<td>{e(fmt(r[h]))}</td>" for h in heads) + "</tr>")
    parts.append(
        "</table><h2>Games</h2><table><tr><th>game</th><th>white</th><th>black</th><th>result</th>"
        "<th>turns</th><th>truth always in belief</th><th>mistakes</th></tr>"
    )
    for s, folder in entries:
        link = f"<a href='{e(folder.name)}/report.html'>{e(Path(s['file']).name)}</a>"
        cells = [
            s["white"],
            s["black"],
            f"{s['result']} {s['win_reason'] or ''}",
            s["turns"],
            fmt(s["truth_always_in_belief"]),
            s["mistake_stats"]["mistake_count"],
        ]
        parts.append(f"<tr><td>{link}</td>" + "".join(f"<td>{e(fmt(c))}</td>" for c in cells) + "</tr>")
    parts.append("</table>")
    if bad:
        parts.append("<h2>Bad files (not analysed)</h2><ul>")
        parts += [f"<li>{e(str(p))}: {e(err)}</li>" for p, err in bad]
        parts.append("</ul>")
    parts.append("</body></html>\n")
    (out / "index.html").write_text("\n".join(parts), encoding="utf-8")
    return agg
