"""PNG plots of one game (matplotlib, Agg: no display needed).

matplotlib's own log messages (a temporary cache directory when HOME is not writable, a slow font
cache build) are about matplotlib, not the games: its logger is set to errors only before it is
imported, so they do not land among the analysis output. Legends are drawn only when a plot has
labelled data, so an empty plot does not warn either.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

logging.getLogger("matplotlib").setLevel(logging.ERROR)

import matplotlib  # noqa: E402  (after its logger is quietened)

matplotlib.use("Agg")
import chess  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from rbc_bot.replay.analysis import GameAnalysis, turn_seconds  # noqa: E402

COLORS = {chess.WHITE: "tab:orange", chess.BLACK: "tab:blue"}


def _legend(ax: Axes) -> None:
    """A legend when something labelled was drawn (matplotlib warns on an empty one)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)


def belief_sizes(ax: Axes, analysis: GameAnalysis) -> None:
    for color, side in analysis.beliefs.items():
        name = chess.COLOR_NAMES[color]
        turns = [t.turn for t in side.turns]
        ax.plot(
            turns,
            [max(t.size_after_opponent, 1) for t in side.turns],
            "-",
            color=COLORS[color],
            label=f"{name}: after opponent's move",
        )
        ax.plot(
            turns,
            [max(t.size_after_sense, 1) for t in side.turns],
            "--",
            color=COLORS[color],
            label=f"{name}: after sense",
        )
        lost = [t for t in side.turns if not t.truth_kept]
        if lost:
            ax.plot(
                [t.turn for t in lost],
                [max(t.size_after_sense, 1) for t in lost],
                "x",
                color="red",
                markersize=8,
                label=f"{name}: truth not in belief",
            )
        logged = [(turn, row) for (c, turn), row in sorted(analysis.game.turn_log.items()) if c == color]
        bot = [(turn, row["belief"]["after_sense"][0]) for turn, row in logged if _has_size(row)]
        if bot:
            ax.plot(*zip(*bot, strict=True), ":", color="gray", label=f"{name}: bot's own belief (log)")
    ax.set_yscale("log")
    ax.set_xlabel("turn")
    ax.set_ylabel("possible boards")
    ax.set_title("Belief size per turn (re-simulated)")
    _legend(ax)


def _has_size(row: dict[str, object]) -> bool:
    belief = row.get("belief")
    if not isinstance(belief, dict):
        return False
    value = belief.get("after_sense")
    return isinstance(value, list) and bool(value) and isinstance(value[0], int)


def sense_quality(ax: Axes, analysis: GameAnalysis) -> None:
    width = 0.4 / max(len(analysis.beliefs), 1)
    for i, (color, side) in enumerate(analysis.beliefs.items()):
        name = chess.COLOR_NAMES[color]
        sensed = [t for t in side.turns if t.best_sense_expected is not None]
        offset = (i - (len(analysis.beliefs) - 1) / 2) * 2 * width
        ax.bar(
            [t.turn + offset - width / 2 for t in sensed],
            [t.sense_eliminated for t in sensed],
            width,
            color=COLORS[color],
            label=f"{name}: eliminated by the sense",
        )
        ax.bar(
            [t.turn + offset + width / 2 for t in sensed],
            [t.best_sense_expected or 0 for t in sensed],
            width,
            color=COLORS[color],
            alpha=0.35,
            label=f"{name}: best sense (expected)",
        )
    ax.set_xlabel("turn")
    ax.set_ylabel("boards eliminated")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_title("Sense: boards eliminated vs the best sense")
    _legend(ax)


def time_used(ax: Axes, analysis: GameAnalysis) -> None:
    rows = sorted(analysis.game.turn_log.items())
    drawn = False
    for color in chess.COLORS:
        points = [(turn, turn_seconds(row)) for (c, turn), row in rows if c == color]
        points = [(t, s) for t, s in points if s is not None]
        if points:
            ax.bar(*zip(*points, strict=True), color=COLORS[color], label=chess.COLOR_NAMES[color])
            drawn = True
    if drawn:
        _legend(ax)
    else:
        ax.text(0.5, 0.5, "no turn log beside this game", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("turn")
    ax.set_ylabel("seconds")
    ax.set_title("Our time per turn (turn log: opponent's move, sense and move)")


def evaluation(ax: Axes, analysis: GameAnalysis) -> None:
    if analysis.scores:
        plies = [s.turn * 2 + (s.color == "black") for s in analysis.scores]
        ax.plot(
            [p / 2 for p in plies], [s.eval_white for s in analysis.scores], "-o", markersize=3, color="black"
        )
        bad = [s for s in analysis.scores if s.is_mistake]
        ax.plot(
            [(s.turn * 2 + (s.color == "black")) / 2 for s in bad],
            [s.eval_white for s in bad],
            "x",
            color="red",
            label="mistake",
        )
        ax.axhline(0, color="gray", linewidth=0.5)
        _legend(ax)
    else:
        ax.text(
            0.5,
            0.5,
            f"no engine scores ({analysis.engine_note})",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.set_xlabel("turn")
    ax.set_ylabel("centipawns for white (clipped)")
    ax.set_title("Evaluation of the true board")


PLOTS: dict[str, Callable[[Axes, GameAnalysis], None]] = {
    "belief_size.png": belief_sizes,
    "sense_eliminated.png": sense_quality,
    "time_per_turn.png": time_used,
    "evaluation.png": evaluation,
}


def write_plots(analysis: GameAnalysis, out: Path) -> list[Path]:
    """Each plot as its own PNG plus ``overview.png`` with all four."""
    paths = []
    for name, draw in PLOTS.items():
        fig, ax = plt.subplots(figsize=(8, 4))
        draw(ax, analysis)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        fig.tight_layout()
        fig.savefig(out / name, dpi=90)
        plt.close(fig)
        paths.append(out / name)
    fig, axes = plt.subplots(2, 2, figsize=(13, 8))
    for ax, draw in zip(axes.flat, PLOTS.values(), strict=True):
        draw(ax, analysis)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(f"{analysis.game.white_name} (white) vs {analysis.game.black_name} (black)")
    fig.tight_layout()
    fig.savefig(out / "overview.png", dpi=80)
    plt.close(fig)
    paths.append(out / "overview.png")
    return paths
