"""Where the engine is found: the lookup order (explicit path, environment variable, bundled binary,
PATH, Debian's /usr/games), its one-line errors, ``check-engine`` and ``stockfish_bin/install.sh``
agreeing with the lookup. Fake engines stand in for every place but the last two tests'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import fake_engine

from rbc_bot import engine_lookup
from rbc_bot.engine import EnginePool, StockfishNotFoundError, find_stockfish


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Every lookup place redirected into tmp dirs, all empty to start with."""
    paths = {
        "env": tmp_path / "env" / "stockfish",
        "bundled": tmp_path / "repo" / "stockfish_bin" / "stockfish",
        "path_dir": tmp_path / "bin",
        "system": tmp_path / "usr_games" / "stockfish",
    }
    paths["path_dir"].mkdir()
    monkeypatch.setattr(engine_lookup, "BUNDLED_PATH", paths["bundled"])
    monkeypatch.setattr(engine_lookup, "SYSTEM_PATH", paths["system"])
    monkeypatch.setenv("PATH", str(paths["path_dir"]))
    monkeypatch.delenv(engine_lookup.ENV_VAR, raising=False)
    return paths


def test_lookup_order(places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = fake_engine(places["system"].parent)
    assert find_stockfish() == system
    on_path = fake_engine(places["path_dir"])
    assert find_stockfish() == on_path
    bundled = fake_engine(places["bundled"].parent)
    assert find_stockfish() == bundled
    env = fake_engine(places["env"].parent)
    monkeypatch.setenv(engine_lookup.ENV_VAR, str(env))
    assert find_stockfish() == env
    explicit = fake_engine(tmp_path / "explicit", "my-engine")
    assert find_stockfish(explicit) == explicit
    assert find_stockfish(str(explicit)) == explicit


def test_explicit_name_on_path(places: dict[str, Path]) -> None:
    other = fake_engine(places["path_dir"], "stockfish-16")
    assert find_stockfish("stockfish-16") == other


def test_non_executable_file_is_skipped(places: dict[str, Path]) -> None:
    places["bundled"].parent.mkdir(parents=True)
    places["bundled"].write_text("not a binary")
    system = fake_engine(places["system"].parent)
    assert find_stockfish() == system


def test_bad_explicit_path_is_an_error(places: dict[str, Path], tmp_path: Path) -> None:
    fake_engine(places["system"].parent)
    missing = tmp_path / "nowhere" / "stockfish"
    with pytest.raises(StockfishNotFoundError, match="nowhere"):
        find_stockfish(missing)


def test_bad_env_var_warns_and_falls_through(
    places: dict[str, Path], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    system = fake_engine(places["system"].parent)
    monkeypatch.setenv(engine_lookup.ENV_VAR, "/no/such/stockfish")
    assert find_stockfish() == system
    assert "/no/such/stockfish" in caplog.text


def test_not_found_names_every_place(places: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine_lookup.ENV_VAR, "/no/such/stockfish")
    with pytest.raises(StockfishNotFoundError) as info:
        find_stockfish()
    message = str(info.value)
    for expected in (
        engine_lookup.ENV_VAR,
        "/no/such/stockfish",
        str(places["bundled"]),
        "PATH",
        str(places["system"]),
        "sudo sh stockfish_bin/install.sh",
        "apt-get install -y stockfish",
    ):
        assert expected in message, expected
    with pytest.raises(StockfishNotFoundError):
        EnginePool()


def _check_engine(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "run_bot.py", "check-engine", *args],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_engine_command(tmp_path: Path) -> None:
    found = _check_engine("--nodes", "2000")
    assert found.returncode == 0, found.stdout + found.stderr
    assert f"binary:  {find_stockfish()}" in found.stdout
    assert "engine:  Stockfish" in found.stdout
    assert found.stdout.count("search:  ") == 2 and "best " in found.stdout
    missing = _check_engine("--stockfish", str(tmp_path / "no-stockfish"))
    assert missing.returncode == 2, "a Stockfish that is not there is a usage error"
    (line,) = missing.stderr.strip().splitlines()
    assert line.startswith("rbc-bot: error: ") and "no-stockfish" in line and "install.sh" in line


def _install_sh(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = Path(__file__).resolve().parent.parent / "stockfish_bin" / "install.sh"
    return subprocess.run(["sh", str(script)], env=env, capture_output=True, text=True, timeout=30)


def test_install_script_finds_what_the_lookup_finds(tmp_path: Path) -> None:
    """It must not reinstall (or fail) when the engine is already there, and agree with find_stockfish."""
    default = _install_sh(dict(os.environ))
    assert default.returncode == 0, default.stderr
    assert str(find_stockfish()) in default.stdout
    fake = fake_engine(tmp_path)
    from_env = _install_sh({**os.environ, engine_lookup.ENV_VAR: str(fake)})
    assert from_env.returncode == 0 and str(fake) in from_env.stdout
