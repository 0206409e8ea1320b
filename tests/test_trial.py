"""Trials: the candidate's and the control's games interleaved game by game, played for real against
RandomBot, resumed, compared pair by pair; and the command's one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rbc_bot.cli import main
from rbc_bot.players import BotSpec
from rbc_bot.runner import load_records
from rbc_bot.trial import TrialSettings, load_trial, trial_jobs


def settings(games: int = 2) -> TrialSettings:
    return TrialSettings(
        candidate=BotSpec("rbc_bot", ("engine.workers=1", "move.consider_pass=false")),
        control=BotSpec("rbc_bot", ("engine.workers=1",)),
        opponent=BotSpec("random"),
        games=games,
        seconds=15,
        increment=1,
        seed=7,
    )


def test_each_game_of_the_candidate_is_followed_by_the_same_game_of_the_control() -> None:
    trial = settings(games=4)
    jobs = trial_jobs(trial)
    assert [job.index for job in jobs] == list(range(8))
    assert [job.meta["arm"] for job in jobs] == ["candidate", "control"] * 4
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert (first.seed, first.meta["pair"], first.meta["a_color"]) == (
            second.seed,
            second.meta["pair"],
            second.meta["a_color"],
        )
        ours = "white" if first.meta["a_color"] == "white" else "black"
        assert getattr(first, ours) == trial.candidate and getattr(second, ours) == trial.control
    assert [job.seed for job in jobs[::2]] == [7, 7, 8, 8]
    assert [job.meta["a_color"] for job in jobs[::2]] == ["white", "black", "white", "black"]


def test_a_trial_plays_both_arms_compares_them_and_goes_on_with_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = ["trial", "random", "--games", "2", "--seconds", "15", "--increment", "1", "--seed", "7",
             "--set", "engine.workers=1", "--set", "move.consider_pass=false",
             "--control-set", "engine.workers=1", "--out", str(tmp_path)]  # fmt: skip
    assert main(first) == 0
    said = capsys.readouterr().out
    records = load_records(tmp_path / "results.jsonl")
    assert sorted((r["arm"], r["a_color"]) for r in records) == [
        ("candidate", "black"),
        ("candidate", "white"),
        ("control", "black"),
        ("control", "white"),
    ]
    assert all(r["crashed"] is None for r in records)
    summary = json.loads((tmp_path / "summary.json").read_text())
    candidate, control = summary["arms"]
    assert (candidate["arm"], control["arm"]) == ("candidate", "control")
    assert candidate["opponent"] == control["opponent"] == "random"
    assert candidate["games"] == control["games"] == 2
    points = {
        arm: sum(1.0 if r["winner"] == r["a_color"] else 0.5 if r["winner"] is None else 0.0
                 for r in records if r["arm"] == arm)
        for arm in ("candidate", "control")
    }  # fmt: skip
    comparison = summary["comparison"]
    assert comparison["shared"] == 2
    assert (comparison["candidate_points"], comparison["control_points"]) == (
        points["candidate"],
        points["control"],
    )
    assert "candidate (engine.workers=1 move.consider_pass=false): 2 games, W-L-D" in said
    assert "control   (engine.workers=1): 2 games, W-L-D" in said
    assert f"2 shared games: control {points['control']:.1f}" in said and "difference" in said
    assert said.count("  paired: difference") >= 2, "the running comparison once a game has both arms"
    assert load_trial(tmp_path) == settings()

    assert main(first) == 2, "a folder holding results is only resumed"
    assert "already holds results" in capsys.readouterr().err
    assert main(["trial", "--resume", str(tmp_path), "--games", "4"]) == 0
    records = load_records(tmp_path / "results.jsonl")
    assert len(records) == 8 and {r["seed"] for r in records} == {7, 8}
    assert "4 shared games: control" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["trial", "random"], "the candidate and the control are the same bot"),
        (["trial", "random", "--set", "engine.workers=1", "--games", "3"], "--games must be even"),
        (["trial", "random", "--set", "no.such=1"], "no.such"),
        (["trial", "--resume", "{tmp}"], "no trial.json there"),
        (["trial", "random", "--resume", "{tmp}"], "give no OPPONENT"),
    ],
)
def test_the_command_rejects_bad_input_in_one_line(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "never"
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main([*argv, "--out", str(out)] if "--resume" not in argv else argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rbc-bot: error: ") and says in err[0], err
    assert not out.exists(), "nothing is played after a usage error"
