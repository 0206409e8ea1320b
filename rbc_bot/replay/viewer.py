"""The board viewer of report.html: the true board beside what the analysed side saw, turn by turn.

Why: the tables say where a game went wrong; a board says why. Each analysed turn shows the true board
(python-chess ``chess.svg``) when the move was chosen, and the player's view: its own pieces, its sense
window outlined, and a heat map of the share of its believed boards holding an enemy piece on each
square; then the requested and taken move, the candidates and the judgement. Everything is inlined
(SVG, script, style): the page needs no network. Buttons and the left/right arrow keys step through.
"""

from __future__ import annotations

import html
import json
from typing import Any

import chess
import chess.svg

from rbc_bot.replay.analysis import GameAnalysis
from rbc_bot.replay.judge import BLUNDER_CP
from rbc_bot.replay.load import turns_of

SQUARE = 45  # chess.svg's square size and margin (coordinates on, no borders)
MARGIN = 15
SIZE = 330  # pixels each board is drawn at
NEUTRAL = {"square light": "#f4f4f4", "square dark": "#dcdcdc"}  # so the heat map's red stands out


def _xy(square: int, orientation: chess.Color) -> tuple[int, int]:
    file, rank = chess.square_file(square), chess.square_rank(square)
    x = (file if orientation else 7 - file) * SQUARE + MARGIN
    y = (7 - rank if orientation else rank) * SQUARE + MARGIN
    return x, y


def window_outline(centre: int, orientation: chess.Color) -> str:
    """An SVG rectangle around the 3x3 sense window centred on ``centre`` (clipped to the board)."""
    files = [f for f in (chess.square_file(centre) + d for d in (-1, 0, 1)) if 0 <= f < 8]
    ranks = [r for r in (chess.square_rank(centre) + d for d in (-1, 0, 1)) if 0 <= r < 8]
    corners = [
        _xy(chess.square(f, r), orientation) for f in (files[0], files[-1]) for r in (ranks[0], ranks[-1])
    ]
    x0, y0 = min(x for x, _ in corners), min(y for _, y in corners)
    x1, y1 = max(x for x, _ in corners) + SQUARE, max(y for _, y in corners) + SQUARE
    return (
        f'<rect class="sense-window" x="{x0 + 2}" y="{y0 + 2}" width="{x1 - x0 - 4}" height="{y1 - y0 - 4}" '
        'fill="none" stroke="#1565c0" stroke-width="4"/>'
    )


def _arrows(requested: chess.Move | None, taken: chess.Move | None) -> list[chess.svg.Arrow]:
    arrows = []
    if requested is not None and requested != taken:
        arrows.append(chess.svg.Arrow(requested.from_square, requested.to_square, color="#c62828aa"))
    if taken is not None:
        arrows.append(chess.svg.Arrow(taken.from_square, taken.to_square, color="#2e7d32cc"))
    return arrows


def view_board(
    truth: chess.Board,
    color: chess.Color,
    heat: list[float],
    sense: int | None,
    arrows: list[chess.svg.Arrow],
) -> str:
    """The player's view: its own pieces (known exactly), the enemy heat map and the sense window."""
    own = chess.Board(None)
    for square, piece in truth.piece_map().items():
        if piece.color == color:
            own.set_piece_at(square, piece)
    fill = {sq: f"#d32f2f{round(25 + 150 * share):02x}" for sq, share in enumerate(heat) if share > 0.005}
    svg = chess.svg.board(own, orientation=color, fill=fill, arrows=arrows, size=SIZE, colors=NEUTRAL)
    if sense is not None:
        svg = svg.replace("</svg>", window_outline(sense, color) + "</svg>")
    return svg


def _facts(row: dict[str, Any]) -> list[str]:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    facts = [
        f"sense: {row['sense'] or 'none'}" + (f" (rule: {row['sense_rule']})" if row["sense_rule"] else ""),
        f"believed boards: {row['size_after_opponent'] or 0:,} before the sense, "
        f"{row['size_after_sense'] or 0:,} after; true board among them: {row['truth_note']}",
        f"own king attacked on {pct(row['king_attacked'])} of the believed boards",
    ]
    if row["move_rule"]:
        facts.append(f"the bot's move rule (turn log): {row['move_rule']}")
    if row.get("passive_boards"):
        facts.append(
            f"the move was chosen on the passive watch's {row['passive_boards']} board(s) only: the "
            "opponent's pieces looked unmoved through enough senses in a row (rbc_bot/passive.py)"
        )
    if row["decision_after_sense"] is not None:
        changed = "the sense changed the move" if row["sense_changed_move"] else "the sense did not change it"
        facts.append(
            f"a quick re-run of our move selector (sampled boards, low node limit) picks "
            f"{row['decision_before_sense']} on the boards before the sense and "
            f"{row['decision_after_sense']} after it: {changed}"
        )
    if row["cp_loss"] is not None:
        judged = f"true board: lost {row['cp_loss']:,.0f} cp (engine best {row['best_move']})"
        if row["expected_loss"] is not None:
            judged += (
                f"; believed boards: lost {row['expected_loss']:,.0f} cp on average, bad on "
                f"{pct(row['bad_share'])}, lost {BLUNDER_CP}+ cp or the king on {pct(row['hang_share'])}"
            )
        if row.get("alternative") is not None:
            judged += (
                f"; asked for instead, {row['alternative']} lost {row['alternative_loss']:,.0f} cp there"
            )
        facts.append(judged)
    if row["tags"]:
        facts.append(f"mistake: {row['kind'] or 'unjudged'} ({row['tags']})")
    return facts


def _candidates(row: dict[str, Any]) -> str:
    e = html.escape
    cands = row["candidates"] or []
    if not cands:
        return "<p>no candidates recorded</p>"
    if "worst" in cands[0]:  # our bot's turn log
        head = "<tr><th>candidate</th><th>worst cp</th><th>mean cp</th></tr>"
        body = "".join(
            f"<tr><td>{e(str(c.get('move') or 'pass'))}</td><td>{c.get('worst')}</td>"
            f"<td>{c.get('mean')}</td></tr>"
            for c in cands
        )
        return f"<table class='cands'><caption>the bot's candidates (turn log)</caption>{head}{body}</table>"
    head = "<tr><th>engine best</th><th>on boards</th></tr>"
    body = "".join(f"<tr><td>{e(str(c['move']))}</td><td>{c['boards']}</td></tr>" for c in cands)
    return f"<table class='cands'><caption>best moves on the believed boards</caption>{head}{body}</table>"


def viewer_turns(
    analysis: GameAnalysis, rows: list[dict[str, Any]], decisive: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """One entry per analysed turn with a move: both boards as SVG and the texts shown beside them."""
    history = analysis.game.history
    by_key = {(row["color"], row["turn"]): row for row in rows}
    out = []
    for turn in turns_of(history):
        row = by_key.get((chess.COLOR_NAMES[turn.color], turn.turn_number))
        if row is None or not history.has_move(turn):
            continue
        truth = history.truth_board_before_move(turn)
        requested, taken = history.requested_move(turn), history.taken_move(turn)
        arrows = _arrows(requested, taken)
        mistake = (row["kind"] or "mistake").replace("_", " ") if row["tags"] else ""
        if decisive and (decisive["color"], decisive["turn"]) == (row["color"], row["turn"]):
            mistake = f"The decisive moment: {decisive['text']}"
        view = analysis.view_of(turn.color, turn.turn_number)
        heat = view.heat if view else [0.0] * 64
        out.append(
            {
                "label": f"{row['color']} turn {row['turn']}",
                "color": row["color"],
                "turn": row["turn"],
                "move": f"requested {row['requested']}, taken {row['taken']}"
                + (f", captured on {row['capture']}" if row["capture"] else ""),
                "true_svg": chess.svg.board(truth, orientation=turn.color, arrows=arrows, size=SIZE),
                "view_svg": view_board(truth, turn.color, heat, history.sense(turn), arrows),
                "facts": "".join(f"<li>{html.escape(f)}</li>" for f in _facts(row)),
                "candidates": _candidates(row),
                "mistake": mistake,
            }
        )
    return out


VIEWER_STYLE = """<style>
#viewer{border:1px solid #ccc;padding:8px;margin:1em 0}
#viewer .boards{display:flex;gap:16px;flex-wrap:wrap}
#viewer .boards>div{flex:1 1 360px;min-width:360px;font-size:14px}
#viewer figure{margin:0;width:330px} #viewer figcaption{font-size:13px;color:#444;text-align:center}
#viewer button{font-size:14px;margin-right:4px}
#v-label{font-weight:bold;font-size:16px;margin:0 8px} #v-move{font-size:15px;margin:6px 0}
#v-mistake{color:#b71c1c;font-weight:bold;max-width:1100px}
#viewer table.cands td,#viewer table.cands th{text-align:left}
</style>"""

VIEWER_MARKUP = """<div>
<button id="v-first" title="first turn">&laquo; first</button>
<button id="v-prev" title="previous turn (left arrow)">&#x25C0; prev</button>
<span id="v-label"></span>
<button id="v-next" title="next turn (right arrow)">next &#x25B6;</button>
<button id="v-last" title="last turn">last &raquo;</button>
<button id="v-decisive">decisive turn</button> <span id="v-position"></span></div>
<div id="v-move"></div><div id="v-mistake"></div>
<div class="boards">
<figure><div id="v-true"></div><figcaption>true board before the move</figcaption></figure>
<figure><div id="v-view"></div><figcaption>what the player saw: own pieces, sense window (blue),
enemy pieces by share of believed boards (red)</figcaption></figure>
<div><ul id="v-facts"></ul><div id="v-candidates"></div></div>
</div>
<p class="k">Arrows: green the move taken, red the move requested when it was changed.
Left/right arrow keys step.</p>"""

VIEWER_SCRIPT = """<script>
(function () {
  var turns = JSON.parse(document.getElementById('viewer-data').textContent);
  var start = parseInt(document.getElementById('viewer').getAttribute('data-start'), 10) || 0;
  var index = 0;
  function el(id) { return document.getElementById(id); }
  function show(k) {
    index = Math.max(0, Math.min(turns.length - 1, k));
    var t = turns[index];
    el('viewer').setAttribute('data-index', String(index));
    el('v-label').textContent = t.label;
    el('v-position').textContent = (index + 1) + ' / ' + turns.length;
    el('v-move').textContent = t.move;
    el('v-mistake').textContent = t.mistake;
    el('v-true').innerHTML = t.true_svg;
    el('v-view').innerHTML = t.view_svg;
    el('v-facts').innerHTML = t.facts;
    el('v-candidates').innerHTML = t.candidates;
    el('v-prev').disabled = el('v-first').disabled = index === 0;
    el('v-next').disabled = el('v-last').disabled = index === turns.length - 1;
  }
  el('v-first').onclick = function () { show(0); };
  el('v-prev').onclick = function () { show(index - 1); };
  el('v-next').onclick = function () { show(index + 1); };
  el('v-last').onclick = function () { show(turns.length - 1); };
  el('v-decisive').onclick = function () { show(start); };
  document.addEventListener('keydown', function (event) {
    if (event.key === 'ArrowLeft') { show(index - 1); event.preventDefault(); }
    if (event.key === 'ArrowRight') { show(index + 1); event.preventDefault(); }
  });
  if (turns.length) { show(0); }
})();
</script>"""


def viewer_html(analysis: GameAnalysis, summary: dict[str, Any]) -> str:
    """The viewer section (style, markup, data and script); empty when no turn was analysed."""
    decisive = summary.get("decisive") or {}
    turns = viewer_turns(analysis, summary["per_turn"], decisive or None)
    if not turns:
        return ""
    key = (decisive.get("color"), decisive.get("turn"))
    start = next((i for i, t in enumerate(turns) if (t["color"], t["turn"]) == key), 0)
    data = json.dumps(turns).replace("</", "<\\/")  # no "</script>" inside the script element
    return f"""{VIEWER_STYLE}
<h2>Board viewer</h2>
<div id="viewer" data-start="{start}" data-index="0">
{VIEWER_MARKUP}
</div>
<script type="application/json" id="viewer-data">{data}</script>
{VIEWER_SCRIPT}"""
