"""The terminal output of ``analyze`` (rich): one game's summary and per-turn table, and the folder's
results table.

Numbers and texts are never cut: rich's default is to end a cell that does not fit with "…", which
turned "30,047" into "30,0…". Number columns do not wrap, text columns wrap at words, and a per-turn
table wider than the terminal is printed as two narrower tables (belief and sense, then moves).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rbc_bot.replay.analysis import TRUTH_STASHED
from rbc_bot.replay.report import decisive_text, fmt

BELIEF_COLUMNS = ("turn", "boards", "truth", "sense", "elim.", "best sense")
MOVE_COLUMNS = ("turn", "move", "eval", "cp loss", "mistake", "s")
TEXT_COLUMNS = {"mistake"}
"""Columns that may wrap (at words); every other column keeps its cells on one line."""
TRUTH_WORDS = {"yes": "ok", TRUTH_STASHED: "stashed"}
WIDE = 10_000  # a width no table reaches: measures a table's needs, not the terminal's


def print_summary(summary: dict[str, Any], console: Console, full: bool = True) -> None:
    """The rich terminal summary: headline facts, then the per-turn table."""
    console.print(
        f"[bold]{escape(summary['white'])}[/] (white) vs [bold]{escape(summary['black'])}[/] (black): "
        f"{summary['result']} ({summary['win_reason'] or 'unfinished'}), {summary['turns']} turns"
    )
    for name, side in summary["belief"].items():
        lost = side["first_truth_lost"]
        state = (
            "[green]truth always in belief[/]"
            if side["truth_always_in_belief"]
            else (f"[red]truth lost from turn {lost}[/]" if lost is not None else "[yellow]stopped early[/]")
        )
        console.print(
            f"  {name}: {state}; mean {fmt(side['mean_size_after_sense'])} boards after sense; "
            f"sense expected {fmt(side['sense_expected_mean'])} "
            f"vs best {fmt(side['best_sense_expected_mean'])}"
            + (f"; {escape(side['stopped'])}" if side["stopped"] else "")
        )
    stats = summary["mistake_stats"]
    console.print(
        f"  engine: {escape(summary['engine'])}; "
        f"{stats['mistake_count']} mistakes in {stats['moves']} moves, "
        f"{stats['king_captures_missed']} king captures missed, "
        f"{stats['kings_left_capturable']} kings left en prise"
    )
    kinds = ", ".join(f"{n} {k}" for k, n in stats.get("kinds", {}).items() if n)
    if kinds:
        console.print(f"  mistake kinds: {kinds}")
    console.print(f"  [bold]decisive moment:[/] {escape(decisive_text(summary))}", soft_wrap=True)
    if full:
        for table in turn_tables(summary, console):
            console.print(table)


def turn_cells(row: dict[str, Any]) -> dict[str, str]:
    """One analysed turn's cells, by column header."""
    moved = row["taken"] + ("*" if row["requested"] != row["taken"] else "")
    best = f"{row['best_sense']} {row['best_expected']:,.0f}" if row["best_sense"] else "-"
    return {
        "turn": f"{row['color'][0].upper()}{row['turn']}",
        "boards": f"{fmt(row['size_after_opponent'])}>{fmt(row['size_after_sense'])}",
        "truth": TRUTH_WORDS.get(row["truth_note"], row["truth_note"]),
        "sense": fmt(row["sense"]),
        "elim.": fmt(row["eliminated"]),
        "best sense": best,
        "move": moved,
        "eval": fmt(row["eval_white"]),
        "cp loss": fmt(row["cp_loss"]),
        "mistake": row["kind"] or row["tags"],
        "s": fmt(row["seconds"]),
    }


def turn_table(summary: dict[str, Any], columns: tuple[str, ...]) -> Table:
    """One terminal row per analysed turn with ``columns`` (a lost truth in red, a mistake in yellow)."""
    table = Table(header_style="bold", box=None, pad_edge=False)
    for header in columns:
        if header in TEXT_COLUMNS:
            table.add_column(header, justify="left", overflow="fold")
        else:
            table.add_column(header, justify="right", no_wrap=True)
    for row in summary["per_turn"]:
        style = "red" if row["truth"] is False else "yellow" if row["tags"] else None
        cells = turn_cells(row)
        table.add_row(*(escape(cells[c]) for c in columns), style=style)
    return table


def turn_tables(summary: dict[str, Any], console: Console) -> list[Table]:
    """The per-turn table, or its belief half and its move half when the whole one is wider than the
    terminal (rich would squeeze the text column below its longest word to make it fit)."""
    whole = turn_table(summary, BELIEF_COLUMNS + MOVE_COLUMNS[1:])
    needs = console.measure(whole, options=console.options.update_width(WIDE)).maximum
    if needs <= console.width:
        return [whole]
    return [turn_table(summary, BELIEF_COLUMNS), turn_table(summary, MOVE_COLUMNS)]


def print_aggregate(agg: dict[str, Any], console: Console) -> None:
    """The folder's results by player, colour and opponent, then its belief and mistake figures."""
    table = Table(title=f"{agg['games']} games", header_style="bold")
    for head in ("player", "color", "opponent"):
        table.add_column(head, overflow="fold")
    for head in ("games", "wins", "draws", "losses", "win rate"):
        table.add_column(head, justify="right", no_wrap=True)
    for r in agg["results"]:
        table.add_row(
            escape(r["player"]),
            r["color"],
            escape(r["opponent"]),
            *(fmt(r[k]) for k in ("games", "wins", "draws", "losses")),
            f"{r['win_rate']:.0%}",
        )
    console.print(table)
    console.print(
        f"mean belief size {fmt(agg['mean_belief_size'])}; truth lost in {agg['sides_truth_lost']} of "
        f"{agg['sides_analysed']} sides; mistake rate {fmt(agg['mistake_rate'])}; "
        f"mean seconds per turn {fmt(agg['mean_seconds_per_turn'])}"
    )
    for item in agg["bad_files"]:
        console.print(f"[red]bad file[/] {escape(item['file'])}: {escape(item['error'])}")
