"""Config loading: TOML + key=value overrides, typed, and clear errors naming the bad key or value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rbc_bot.config import BotConfig, load_config
from rbc_bot.players import BotSpec, BotSpecError


def test_defaults_file_then_overrides(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    path.write_text('[move]\naggregate = "mix"\nmix_min_weight = 0.25\n[engine]\nnodes = 500\n')
    config = load_config(path, ["move.aggregate=mean", "belief.max_cap=3000", "engine.deterministic=yes"])
    assert config.move.aggregate == "mean"  # the override wins over the file
    assert config.move.mix_min_weight == 0.25 and config.engine.nodes == 500
    assert config.belief.max_cap == 3000 and config.engine.deterministic is True
    assert load_config(None, ["engine.nodes=none"]).engine.nodes is None
    assert load_config().to_dict() == BotConfig().to_dict()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("move.aggregat=min", "unknown config key 'move.aggregat'"),
        ("nosuch.key=1", "unknown config key 'nosuch.key'"),
        ("move.aggregate=max", "move.aggregate: 'max' is not one of min, mean, mix, regret, tail"),
        ("belief.max_cap=1.5", "belief.max_cap: '1.5' is not an int"),
        ("engine.deterministic=maybe", "engine.deterministic: 'maybe' is not a boolean"),
        ("move.top_k=0", "move.top_k must be >= 1"),
        ("move.min_depth=30", "need 0 <= move.min_depth <= engine.max_depth"),
        ("move.fill_breadth=-1", "move.fill_breadth must be >= 0"),
        ("clock.sense_share=1.5", "clock.sense_share must be in"),
        ("clock.spend_target=1.5", "clock.spend_target must be in [0, 1]"),
        ("move.blunder_board_weight=0", "move.blunder_board_weight must be in"),
        ("move.second_look_share=1", "move.second_look_share must be in"),
        ("move.second_look_boards=0", "move.second_look_boards must be >= 1"),
        ("move.proposal_attacked_share=1.5", "move.proposal_attacked_share must be in"),
        ("move.king_risk=most", "move.king_risk"),
        ("move.rational_temperature=0", "move.rational_temperature must be > 0"),
        ("sense.decision_attacked_share=2", "sense.decision_attacked_share must be in"),
        ("sense.raid_share=-0.1", "sense.raid_share must be in"),
        ("sense.queen_share=1.5", "sense.queen_share must be in"),
        ("move.queen_share=-0.1", "move.queen_share must be in"),
        ("move.top_k", "is not key=value"),
    ],
)
def test_bad_overrides_name_the_key(override: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, [override])


def test_the_survivors_king_risk_needs_the_worst_board_aggregate() -> None:
    """Leaving the lost boards out of a worst board is defined; out of a mean it is not asked for."""
    assert load_config(None, ["move.king_risk=survivors", "move.aggregate=min"]).move.king_risk == "survivors"
    for aggregate in ("mean", "mix"):  # mix is the default
        with pytest.raises(ValueError, match=re.escape("move.king_risk=survivors needs move.aggregate=min")):
            load_config(None, ["move.king_risk=survivors", f"move.aggregate={aggregate}"])


def test_the_king_risk_share_needs_an_averaging_aggregate() -> None:
    assert load_config(None, ["move.king_risk_share=0.03"]).move.king_risk_share == 0.03
    message = "move.king_risk_share needs an averaging move.aggregate (not min)"
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, ["move.king_risk_share=0.03", "move.aggregate=min"])
    with pytest.raises(ValueError, match=re.escape("move.king_risk_share must be in [0, 1)")):
        load_config(None, ["move.king_risk_share=1"])


def test_the_aggregate_king_risk_needs_an_averaging_aggregate() -> None:
    """Under the worst board every move that loses the king somewhere scores the same: nothing to price."""
    assert load_config(None, ["move.king_risk=aggregate"]).move.king_risk == "aggregate"
    message = "move.king_risk=aggregate needs an averaging move.aggregate (not min)"
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(None, ["move.king_risk=aggregate", "move.aggregate=min"])


def test_the_move_samples_shares_cannot_ask_for_more_than_the_room() -> None:
    """The queen and threat tiers each take up to their share of the same room."""
    assert load_config(None, ["move.queen_share=0.4", "move.threat_share=0.6"]).move.queen_share == 0.4
    with pytest.raises(ValueError, match=re.escape("move.queen_share + threat_share must be <= 1")):
        load_config(None, ["move.queen_share=0.5", "move.threat_share=0.6"])


def test_bad_files_are_clear_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[move\naggregate = 'min'\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config(broken)
    with pytest.raises(ValueError, match="cannot read config file"):
        load_config(tmp_path / "missing.toml")
    flat = tmp_path / "flat.toml"
    flat.write_text("aggregate = 'min'\n")
    with pytest.raises(ValueError, match=re.escape("must be a [table]")):
        load_config(flat)


def test_bot_spec_rejects_a_bad_config_before_any_game() -> None:
    with pytest.raises(BotSpecError, match=re.escape("unknown config key 'move.nope'")):
        BotSpec("rbc_bot", ("move.nope=1",)).validate()
    with pytest.raises(BotSpecError, match="apply to rbc_bot only"):
        BotSpec("random", ("move.top_k=2",)).validate()
