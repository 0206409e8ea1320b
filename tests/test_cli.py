"""The command line's conventions: one error line on stderr with one prefix, exit 2 for usage, 1 at
run time; defaults that finish in hours, not days; material-only play only when asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rbc_bot.cli import build_parser, main
from rbc_bot.commands import match as match_command

ROOT = Path(__file__).parent.parent


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "run_bot.py", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
    )  # fmt: skip


def one_error_line(proc: subprocess.CompletedProcess[str], status: int = 2) -> str:
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("rbc-bot: error: "), line
    return line


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--seconds", "-5"], "--seconds"),
        (["--seconds", "0"], "--seconds"),
        (["--increment", "-1"], "--increment"),
    ],
)
def test_play_rejects_a_clock_it_cannot_play(flags: list[str], named: str, tmp_path: Path) -> None:
    line = one_error_line(run_cli("play", "--opponent", "random", "--out", str(tmp_path), *flags))
    assert named in line
    assert not list(tmp_path.iterdir()), "no game was played"


def test_a_stockfish_that_does_not_work_is_an_error_not_a_material_game(tmp_path: Path) -> None:
    line = one_error_line(run_cli("play", "--stockfish", "/nope", "--out", str(tmp_path)))
    assert "/nope" in line
    fake = tmp_path / "fake-stockfish"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    line = one_error_line(
        run_cli("match", "rbc_bot", "random", "--a-set", f"engine.path={fake}", "--out", str(tmp_path / "m"))
    )
    assert "fake-stockfish" in line
    assert not (tmp_path / "m" / "results.jsonl").exists()


def test_a_bad_stockfish_for_trout_is_an_error_not_our_win(tmp_path: Path) -> None:
    proc = run_cli(
        "play", "--opponent", "trout", "--set", "engine.material_only=true", "--seconds", "5",
        "--out", str(tmp_path),
        env={"STOCKFISH_EXECUTABLE": str(tmp_path / "missing")},
    )  # fmt: skip
    line = one_error_line(proc)
    assert "trout" in line and "STOCKFISH_EXECUTABLE" in line


def test_material_only_play_when_asked(tmp_path: Path) -> None:
    proc = run_cli(
        "play", "--opponent", "random", "--set", "engine.material_only=true", "--seconds", "20",
        "--increment", "0", "--quiet", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.glob("*.json")), "the game was played and saved"


def test_bare_match_and_tournament_defaults_finish_in_hours() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    match_parser = sub.choices["match"]  # type: ignore[attr-defined]
    match_command.configure(match_parser)
    args = parser.parse_args(["match", "rbc_bot", "trout"])
    settings, _, _ = match_command.settings_from_args(args)
    assert settings.games * (settings.seconds + 60 * settings.increment) * 2 <= 12 * 3600


def test_resume_names_a_bad_match_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "match.json").write_text("{not json")
    assert main(["match", "--resume", str(tmp_path)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("rbc-bot: error: ") and str(tmp_path / "match.json") in line


def test_argparse_errors_follow_the_convention() -> None:
    line = one_error_line(run_cli("match", "--no-such-flag"))
    assert "--no-such-flag" in line and "--help" in line


def test_help_states_the_exit_convention() -> None:
    text = build_parser().format_help()
    assert "exit status 2" in text and "exit status 1" in text and "rbc-bot: error:" in text
