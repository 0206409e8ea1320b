"""The sparring partner in real games, and the gauntlet that plays it: processes, resume, the table."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from process_helpers import _cmdline, live_descendants, still_alive

from rbc_bot.cli import main
from rbc_bot.game import play_game
from rbc_bot.gauntlet import STRANGEFISH, Opponent, markdown_table, run_gauntlet
from rbc_bot.players import BotSpec
from rbc_bot.runner import load_records

needs_strangefish = pytest.mark.skipif(
    not STRANGEFISH.is_file(), reason=f"the sparring partner is not at {STRANGEFISH}"
)


@needs_strangefish
def test_strangefish_plays_in_a_seat_and_leaves_no_process_behind(tmp_path: Path) -> None:
    """StrangeFish starts worker processes (a daemonic seat refused them) and each bot starts Stockfish.

    Every process either bot started is seen while the game runs; after the game none may be left.
    """
    started: dict[int, str] = {}

    def on_turn(_: dict[str, Any]) -> None:
        for pid in live_descendants(os.getpid()):
            started.setdefault(pid, _cmdline(pid))

    result = play_game(
        BotSpec("rbc_bot"),
        BotSpec(str(STRANGEFISH)),
        seconds=20,
        increment=1,
        seed=4,
        out_dir=tmp_path,
        on_turn=on_turn,
    )
    assert result.crashed is None, result.traceback
    assert result.plies >= 2
    stockfish = {pid for pid, command in started.items() if "stockfish" in command}
    assert len(started) >= 6, "two seats, StrangeFish's workers and both bots' engines were running"
    assert len(stockfish) >= 3, "our engines and StrangeFish's were running"
    deadline = time.monotonic() + 5  # a SIGKILLed process takes a moment to die
    while (left := still_alive(set(started))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == set(), f"processes a bot started outlived the game: {[started[p] for p in left]}"


def test_gauntlet_plays_resumes_and_tabulates(tmp_path: Path) -> None:
    rows = [Opponent("random", "random", 15, 1, 2, 5)]
    first = run_gauntlet(BotSpec("rbc_bot", ("engine.workers=1",)), rows, tmp_path)
    records = load_records(tmp_path / "random" / "results.jsonl")
    assert len(records) == 2 and {r["a_color"] for r in records} == {"white", "black"}
    (row,) = first
    assert row["games"] == 2 and row["wins"] + row["losses"] + row["draws"] == 2
    assert row["flags"] == sum(1 for r in records if r["timed_out"] == r["a_color"])
    assert 0.0 <= row["median_clock_unused"] <= 1.0
    assert f"| random | 15+1 | 2 | {row['wins']}-{row['losses']}-{row['draws']} |" in markdown_table(first)

    again = run_gauntlet(BotSpec("rbc_bot", ("engine.workers=1",)), rows, tmp_path)
    assert again == first, "a finished gauntlet resumes without playing again"
    assert load_records(tmp_path / "random" / "results.jsonl") == records

    with pytest.raises(ValueError, match="holds another match"):
        run_gauntlet(BotSpec("rbc_bot"), rows, tmp_path)  # another configuration, same folder


def test_gauntlet_command_rejects_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gauntlet", "--only", "nobody", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rbc-bot: error: --only nobody")
    missing = tmp_path / "nope.py"
    assert (
        main(["gauntlet", "--only", "strangefish", "--strangefish", str(missing), "--out", str(tmp_path)])
        == 2
    )
    assert "no such file" in capsys.readouterr().err
    assert main(["gauntlet", "--games", "3", "--out", str(tmp_path)]) == 2
    assert not (tmp_path / "random").exists(), "nothing is played after a usage error"


def test_gauntlet_past_its_time_limit_starts_no_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [Opponent("random", "random", 15, 1, 2, 5), Opponent("attacker", "attacker", 15, 1, 2, 5)]
    played = run_gauntlet(BotSpec("random"), rows, tmp_path, start_until=time.monotonic())
    assert [(row["opponent"], row["games"], row["planned"]) for row in played] == [
        ("random", 0, 2),
        ("attacker", 0, 2),
    ]
    assert not list(tmp_path.rglob("*.json.turns.jsonl")) and not list(tmp_path.rglob("results.jsonl"))
    assert "| random | 15+1 | 0 | 0-0-0 | - |" in markdown_table(played)

    out = tmp_path / "cli"
    assert main(["gauntlet", "--only", "random", "--games", "2", "--stop-after", "0", "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "not every game was played" in said and not list(out.rglob("results.jsonl"))
