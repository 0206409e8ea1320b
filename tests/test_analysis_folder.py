"""``analyze FOLDER --jobs N``: the same reports as one at a time, with progress on stderr."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from reconchess import LocalGame, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

from rbc_bot.cli import main
from rbc_bot.replay.folder import FolderProgress


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two short games and a broken file."""
    root = tmp_path_factory.mktemp("folder")
    for name, seed in (("a", 3), ("b", 12)):
        random.seed(seed)
        game = LocalGame(seconds_per_player=None, full_turn_limit=4)
        _, _, history = play_local_game(RandomBot(), AttackerBot(), game=game)
        history.save(root / f"{name}.json")
    (root / "broken.json").write_text('{"type": "GameHistory", "senses": ')
    return root


def test_jobs_give_the_same_aggregate_and_report_progress(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    aggregates = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}"
        assert main(["analyze", str(folder), "--out", str(out), "--no-engine", "--jobs", jobs]) == 0
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.startswith("analysed ")]
        assert [line.split(":")[0] for line in lines] == ["analysed 1/3", "analysed 2/3", "analysed 3/3"], err
        assert {line.split(": ", 1)[1] for line in lines} == {
            str(folder / n) for n in ("a.json", "b.json", "broken.json")
        }
        assert (out / "a" / "report.html").exists() and (out / "b" / "report.html").exists()
        aggregates.append(json.loads((out / "aggregate.json").read_text()))
    assert aggregates[0] == aggregates[1]
    assert aggregates[1]["games"] == 2 and [b["file"] for b in aggregates[1]["bad_files"]] == [
        str(folder / "broken.json")
    ]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar() -> None:
    stream = Terminal()
    with FolderProgress(2, stream) as progress:
        progress.advance(Path("a.json"))
        progress.advance(Path("b.json"))
    shown = stream.getvalue()
    assert progress.bar is not None and "2/2" in shown and "analysed 1/2:" not in shown


def test_bad_jobs_is_one_line_and_exit_2(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(folder), "--no-engine", "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--jobs must be >= 1" in err
