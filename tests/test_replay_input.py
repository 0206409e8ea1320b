"""Bad replay files are refused with the file named, alone or among good ones in a folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import pytest
from replay_helpers import analyze_args, run_cli, save_short_games

from rbc_bot.replay.load import ReplayError, load_game


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return save_short_games(tmp_path_factory.mktemp("games"))


def _corrupt(path: Path, tmp_path: Path, edit: Any) -> Path:
    raw = json.loads(path.read_text())
    edit(raw)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    return bad


def _illegal_taken(raw: dict[str, Any]) -> None:
    raw["taken_moves"]["true"][1] = {"type": "Move", "value": "e1e5"}
    raw["requested_moves"]["true"][1] = {"type": "Move", "value": "e1e5"}


BAD_CASES = {
    "truncated": (lambda p, d: _write(d, p.read_text()[: len(p.read_text()) // 2]), "truncated"),
    "not json": (lambda p, d: _write(d, "GameHistory? no."), "malformed JSON"),
    "a list": (lambda p, d: _write(d, "[1, 2]"), "expected a GameHistory object"),
    "missing key": (lambda p, d: _corrupt(p, d, lambda r: r.pop("senses")), "missing senses"),
    "bad move value": (
        lambda p, d: _corrupt(
            p, d, lambda r: r["taken_moves"]["true"].__setitem__(0, {"type": "Move", "value": "zz"})
        ),
        "bad value",
    ),
    "uneven lists": (
        lambda p, d: _corrupt(p, d, lambda r: r["fens_after_move"]["true"].pop()),
        "different lengths",
    ),
    "illegal move": (lambda p, d: _corrupt(p, d, _illegal_taken), "not a possible move"),
    "wrong fen": (
        lambda p, d: _corrupt(
            p, d, lambda r: r["fens_after_move"]["false"].__setitem__(0, chess.STARTING_FEN)
        ),
        "does not follow",
    ),
}


def _write(folder: Path, text: str) -> Path:
    path = folder / "bad.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_refused_with_the_file_named(
    case: str, games: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, message = BAD_CASES[case]
    bad = make(games["a"], tmp_path)
    with pytest.raises(ReplayError, match=message):
        load_game(bad)
    assert run_cli(str(bad), "--no-engine") == 1
    err = capsys.readouterr().err
    assert str(bad) in err and message in err


def test_folder_mode_aggregates_and_lists_bad_files(games: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "many"
    (folder / "sub").mkdir(parents=True)
    for name, target in (("a", folder / "a.json"), ("wrapped", folder / "sub" / "server.json")):
        target.write_text(games[name].read_text())
    (folder / "broken.json").write_text('{"type": "GameHistory", "senses": ')
    out = tmp_path / "out"
    assert run_cli(str(folder), *analyze_args(out), "--belief-boards", "4") == 0
    agg = json.loads((out / "aggregate.json").read_text())
    assert agg["games"] == 2
    assert [b["file"] for b in agg["bad_files"]] == [str(folder / "broken.json")]
    histories = [load_game(games["a"]).history, load_game(games["wrapped"]).history]
    for row in agg["results"]:
        played = [
            h
            for h in histories
            if (h.get_white_player_name() if row["color"] == "white" else h.get_black_player_name())
            == row["player"]
        ]
        color = row["color"] == "white"
        assert row["games"] == len(played)
        assert row["wins"] == sum(h.get_winner_color() == color for h in played)
    assert (out / "a" / "report.html").exists() and (out / "server" / "report.html").exists()
    index = (out / "index.html").read_text()
    assert "a/report.html" in index and "server/report.html" in index and "broken.json" in index
    assert run_cli(str(tmp_path / "nothing-here"), "--no-engine") == 1
