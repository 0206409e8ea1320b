"""benchmarks/paired.py: games paired by seed and colour, pooled runs, trial folders, the sign test and
bad folders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from record_helpers import BENCHMARKS, KEPT, write_run

from rbc_bot.stats import sign_test
from rbc_bot.trial import comparison_lines, trial_comparison

sys.path.insert(0, str(BENCHMARKS))
import paired

SCRIPT = BENCHMARKS / "paired.py"
TRIAL = BENCHMARKS / "strength" / "2026-12-06-s42" / "t42-spend"  # a trial of clock.spend_target


def test_sign_test_is_the_exact_binomial() -> None:
    assert sign_test(5, 0) == 2 / 32  # all five discordant pairs one way
    assert sign_test(9, 4) == 2 * (1 + 13 + 78 + 286 + 715) / 2**13  # C(13, 0..4), both tails
    assert sign_test(3, 3) == 1.0
    assert sign_test(0, 0) == 1.0


def test_pooled_base_against_candidate_on_shared_seeds(tmp_path: Path) -> None:
    base1 = write_run(tmp_path / "b1", [(1, "white", "white"), (1, "black", "white"), (2, "white", "black")])
    base2 = write_run(tmp_path / "b2", [(1, "white", "black")])  # seed 1 white: won once, lost once
    cand = write_run(tmp_path / "c", [(1, "white", "white"), (1, "black", "black"), (3, "white", "white")])
    base = paired.load_scores([base1, base2])
    assert base[(1, "white")] == 0.5 and base[(1, "black")] == 0.0 and base[(2, "white")] == 0.0
    lines = paired.compare(base, paired.load_scores([cand]))
    assert lines[0].startswith("1 black") and lines[1].startswith("1 white")  # only the shared keys
    assert lines[-2] == (
        "2 shared games: base 0.5 (25%), candidate 2.0 (100%); candidate better on 2, worse on 0, "
        "sign test p = 0.50"
    )
    # differences +1 (seed 1 black) and +0.5 (seed 1 white): mean 0.75, sd 0.354, half-width
    # 1.96 * 0.354 / sqrt(2) = 0.49; pairs needed ((1.96 + 0.84) * 0.354 / 0.75)^2 = 1.74 -> 2
    assert lines[-1] == (
        "difference +75.0 points per 100 games (95 % CI +26.0 .. +124.0); a difference this size needs "
        "about 2 paired games to show at 95 % (80 % power)"
    )


def test_longer_than_keeps_the_seeds_whose_games_all_lasted_longer(tmp_path: Path) -> None:
    """Seed 1 white: the base's game was quick (a raid), so the pair goes whichever side was quick;
    seed 2 black lasted on both sides and stays; seed 3 white is quick on the candidate's side."""

    def run(folder: str, games: list[tuple[int, str, str, int]]) -> Path:
        path = tmp_path / folder
        path.mkdir()
        rows = [{"seed": s, "a_color": c, "winner": w, "plies": n} for s, c, w, n in games]
        (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path

    base = run("b", [(1, "white", "white", 12), (2, "black", "white", 80), (3, "white", "black", 90)])
    cand = run("c", [(1, "white", "black", 70), (2, "black", "black", 60), (3, "white", "white", 9)])
    assert paired.load_scores([base], longer_than=20) == {(2, "black"): 0.0, (3, "white"): 0.0}
    assert paired.load_scores([cand], longer_than=20) == {(1, "white"): 0.0, (2, "black"): 1.0}
    lines = paired.compare(paired.load_scores([base], 20), paired.load_scores([cand], 20))
    assert lines[0].startswith("2 black") and lines[1].startswith("1 shared games")
    assert len(paired.load_scores([base])) == 3  # no filter by default
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", str(base), "--candidate", str(cand), "--longer-than", "-1"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == ["paired.py: error: --longer-than must be >= 0"]


def test_draws_count_half(tmp_path: Path) -> None:
    run = write_run(tmp_path / "d", [(7, "black", None)])
    assert paired.load_scores([run]) == {(7, "black"): 0.5}


def test_a_folder_without_results_is_one_line_on_stderr(tmp_path: Path) -> None:
    good = write_run(tmp_path / "g", [(1, "white", "white")])
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--base", str(good), "--candidate", str(tmp_path / "nothing")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    expected = f"paired.py: error: not a match or trial folder (no results.jsonl): {tmp_path / 'nothing'}"
    assert done.stderr.strip().splitlines() == [expected]
    assert done.stdout == ""


def test_trial_folders_pair_their_control_and_candidate_arms(tmp_path: Path) -> None:
    """Session 42's trial, split by seed into two folders: pooled, they give the trial's own comparison
    (17 shared games, control 12.0, candidate 13.0), and the match mode is refused beside --trial."""
    records = paired.read_records(TRIAL)
    halves = [tmp_path / "even", tmp_path / "odd"]
    for number, half in enumerate(halves):
        half.mkdir()
        kept = [r for r in records if r["seed"] % 2 == number]
        (half / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--trial", *map(str, halves)],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = comparison_lines(trial_comparison(records))
    assert expected[0].startswith("17 shared games: base 12.0 (71%), candidate 13.0 (76%)")
    assert done.stdout.splitlines()[-2:] == expected
    assert paired.load_scores([TRIAL], arm="control") == paired.load_scores(halves, arm="control")

    def refused(*args: str) -> str:
        run = subprocess.run(
            [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
        )
        assert run.returncode == 1 and run.stdout == ""
        return run.stderr.strip()

    assert refused("--trial", str(TRIAL), "--base", str(KEPT)) == (
        "paired.py: error: give --base and --candidate, or --trial"
    )
    assert refused("--base", str(KEPT)) == "paired.py: error: give --base and --candidate, or --trial"
    assert (
        refused("--trial", str(KEPT))
        == f"paired.py: error: not a trial folder (no record has an arm): {KEPT}"
    )
