"""Every tunable of the bot, as typed dataclasses; loaded from TOML and ``key=value`` overrides.

Keys are ``section.field`` (``move.aggregate=mean``, ``belief.max_cap=5000``). An unknown key or a
value of the wrong type is a ValueError naming it, before any game starts.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin


@dataclass
class BeliefConfig:
    max_cap: int = 20_000  # most boards kept live; the clock lowers it when time is short
    min_cap: int = 500  # fewest boards kept live, however short the time
    seed: int = 0  # sampling seed (reproducible games)
    max_stashed: int = 4_000_000  # most boards stashed (66 B each); beyond it the oldest stashes go
    expansion_slack: int = 20  # after the opponent's move keep up to cap x this many boards for the sense
    carry_weights: bool = False  # each board weighs its probability under a uniformly random opponent,
    # carried from turn to turn (rbc_bot.belief_weights); the sense and the move multiply it in


@dataclass
class SenseConfig:
    # decision: the centre whose result best serves the move choice (candidates scored on a sample)
    # window: the exact 3x3 split (fewest boards left on average); partition: the seed's per-square rule
    method: Literal["partition", "window", "random", "decision"] = "decision"
    decision_boards: int = 48  # boards sampled for the decision method's candidate scores
    decision_attacked_share: float = 0.0  # ... up to this share of them boards where our king is attacked
    decision_max_boards: int = 150  # with more believed boards than this, the window rule instead (0: never)
    decision_boards_per_point: float = 0.0  # boards a sense is expected to remove that are worth as much
    # to the decision rule as one point of expected score in the move choice (0: they only break ties)
    window_sample: int = 4_000  # boards the exact 3x3-window method partitions at most
    raid_share: float = 0.3  # if a king capture works on at least this share of the boards (not all),
    # sense to tell the boards it works on from the others, before any other rule (0: off)
    danger_first: bool = True  # if our king is attacked on some boards only, sense to tell them apart
    danger_min_share: float = 0.1  # ... but only if at least this share of the boards is attacked
    danger_always_below: int = 1_000  # ... or if the belief holds at most this many boards
    danger_ahead_cp: float = 300.0  # ... or if we stand this well on every board (last move's worst cp)
    danger_opening_turns: int = 0  # ... or in our first this many turns (0: never)
    danger_unparried: bool = False  # ... or when no request keeps our king safe on every sampled board
    danger_king_contact: bool = True  # a board where only their king attacks ours counts as danger
    # (false: it does not; on our turn our king takes theirs there, so the sense is better spent
    # locating their king, as the king hunt does in king endings)
    danger_tolerance: float = 0.0  # centres leaving at most this much more of the boards mixed (attacked
    # and safe) than the clearest count as equal: of those, the one leaving the fewest boards
    queen_share: float = 0.0  # if our queen is attacked on at least this share of the boards (not all),
    # sense to tell those boards from the others, after the danger rule (0: off)
    queen_over_danger: float = 0.0  # ... and before it when our king is attacked on fewer than this many
    # times the share of boards where our queen is (0: never)
    piece_over_danger: float = 0.0  # in beliefs the danger rule senses any check in: a piece of ours
    # (a minor or more) hanging on at least piece_share of the boards is sensed before the danger rule
    # when our king is attacked on fewer than this many times that share (0: never)
    piece_share: float = 0.1
    king_hunt_cp: float = 1000.0  # standing this well (mean centipawns), sense to locate the enemy king
    likely_weights: bool = True  # weigh boards by how likely the opponent's play made them (the worse
    # for us, the likelier: rbc_bot.likely) in the decision sense and the window sense
    likely_boards: int = 300  # boards the window sense scores for those weights (depth 1)
    likely_table: Literal["fifths", "tenths"] = "fifths"  # those weights by fifth or by tenth of the ranks
    prior_power: float = 1.0  # with belief.carry_weights: its weights raised to this power (0: ignored)


@dataclass
class MoveConfig:
    aggregate: Literal["min", "mean", "mix", "regret", "tail", "rational"] = "mix"  # scores over boards
    rational_temperature: float = 0.05  # "rational": boards weigh exp(-(our best there - least best) / this)
    tail_share: float = 0.1  # "tail": the worst boards averaged, as a share of all boards
    mix_min_weight: float = 0.3  # "mix" ("regret"): weight of the worst score (largest regret); rest: mean
    blunder_board_weight: float = 1.0  # weight of boards where its king is en prise (means, raid share)
    likely_weights: bool = True  # weigh the scored boards by how likely each is (rbc_bot.likely: the worse
    # our best candidate does there, the likelier) in the means of the averaging aggregates (not "min")
    likely_table: Literal["fifths", "tenths"] = "fifths"  # those weights by fifth or by tenth of the ranks
    prior_power: float = 1.0  # with belief.carry_weights: its weights raised to this power (0: ignored)
    prior_draw: bool = False  # ... draw the calm boards by them instead of weighing the means by them
    weigh_represented: bool = False  # ... and by the believed boards each scored board stands for: the
    # boards where our king is attacked are all scored, so alone they can fill much of the sample
    top_k: int = 3  # Stockfish's top moves per board that become candidates
    proposal_share: float = 0.25  # share of the move budget for finding candidates (the rest scores them)
    max_candidates: int = 24  # candidates scored at most (most proposed first)
    proposal_attacked_share: float = 1.0  # most of the boards proposing candidates that are attacked ones
    max_boards: int = 400  # boards each candidate is scored on at most
    threat_share: float = 0.0  # ... of which up to this share (of the room the attacked leave) where the
    # opponent could check our king at once, when not every board fits (0: a uniform sample)
    queen_share: float = 0.0  # ... and up to this share of that room where our queen is attacked (0: off)
    min_boards: int = 8  # boards scored however short the time
    min_depth: int = 0  # score no more boards than the learned cost lets each search reach this depth on
    # (0: as many as the budget pays at the least depth; the planned depth then follows)
    fill_breadth: int = 0  # when the deepening leaves time and believed boards unscored, score more of
    # them at the depth it reached, up to this many boards in all (0: off)
    likely_pool: int = 0  # when not every calm board fits, score this many at depth 1 and draw the
    # sample (and the proposals' boards) by how likely each is (rbc_bot.likely; 0: uniformly)
    likely_pool_share: float = 0.1  # ... within this share of the move budget
    consider_pass: bool = True  # the pass is a candidate too
    near_tie: float = 0.0  # candidates this close (expected score) to the best aggregate: best mean wins
    second_look: int = 0  # the best this many candidates are searched again, deeper (0, 1: no second look)
    second_look_share: float = 0.25  # ... with this share of the move budget
    second_look_boards: int = 4  # ... on each one's this many worst boards
    king_risk: Literal["fewest", "expected", "survivors", "aggregate"] = "fewest"  # every move can lose
    # the king: fewest such boards first, or the best expected score (a lost king scoring 0) over the
    # believed boards they stand for, or fewest first and then the worst of the boards where the king
    # survives; "aggregate": never count them first, the averaging aggregate prices a lost king (0)
    king_risk_share: float = 0.0  # ("fewest") a move losing our king on less than this share of the
    # believed boards counts as losing it on none: the averaging aggregate prices it (0: always counted)
    king_capture_share: float = 0.3  # take a king capture at once if it works on this share of boards
    king_capture_guard_value: int = 0  # ... unless a miss hangs the piece, if worth this many pawns (0: off)
    king_capture_guard_turns: int = 0  # ... the guard only in our first this many turns (0: in every turn)
    king_capture_by_value: bool = False  # ... only if its expected score beats the best move's (scored first)
    quiet_check_bonus: float = 100.0  # centipawns for a check without capture: unseen, it wins next turn
    quiet_check_odds: float = 0.0  # chance such a check wins at once; if set, instead of the bonus its
    # expected score p on a board becomes odds + (1 - odds) p
    king_exposure_cp: float = 0.0  # centipawns off each scored board where, after our move, the
    # opponent could check our king with a quiet move: the mirror of the bonus above (0: off)
    probe_cp: float = 0.0  # centipawns on every board for a move whose answer (the move taken, the
    # capture square) is expected to rule out 1,000 of the boards the move is chosen on (a sample of at
    # most 3,000), in proportion (rbc_bot.probing; 0: off)
    score_curve: Literal["logistic", "measured"] = "logistic"  # centipawns to expected score: 400 cp
    # for 10:1 odds, or our measured score against StrangeFish (flat near level, steep past +-400 cp)
    clipped_standing: bool = False  # judge how well we stand (the progress bonus, the king hunt) on the
    # chosen move's mean with each board clipped to +-4,000 centipawns, as the expected score clips
    opening_turns: int = 0  # turns during which the opening plan is preferred (0: no plan)
    opening_bonus: float = 40.0  # centipawns on every board for a move of the opening plan
    opening_queen_penalty: float = 60.0  # centipawns off every board for a queen move in the opening
    passive_senses: int = 12  # after this many senses in a row found the boards as if the opponent only
    # passed, choose the move on those boards alone (rbc_bot.passive; 0: never)
    passive_boards: int = 20  # ... if there are at most this many of them
    progress_pushes: bool = False  # with the progress bonus (the 100-ply rule nears), every push of our
    # pawns is a candidate too, whatever the engine proposed


@dataclass
class EngineConfig:
    path: str | None = None  # Stockfish binary; None looks it up (see stockfish_bin/README.md)
    material_only: bool = False  # no engine at all: score by material (only when asked for)
    workers: int = 2  # engine processes (one per core is fastest)
    hash_mb: int = 16
    timeout: float = 20.0  # seconds a search without a time limit (node limits) may take before a restart
    depth: int = 1  # least search depth for scoring positions (cost is per call, not per node)
    max_depth: int = 24  # deepest search when few positions leave time for it (time-capped too)
    nodes: int | None = None  # node limit instead of depth (deterministic with workers=1)
    deterministic: bool = False  # Threads=1, ucinewgame before each call: same input, same scores
    fill_budget: bool = True  # time left after the planned depth goes into deeper passes (+1 ply each)
    fill_last_pass: bool = False  # ... and when the next pass is predicted not to fit, one more cut short
    # by its movetimes (mixing depths across boards) if a fifth of the budget is left (false: never)
    fixed_cost_probes: int = 5  # what a search costs however short (the exchange with the engine): the
    # least of this many probes, one a turn (1: one probe, at the first need, for the whole game)


@dataclass
class ClockConfig:
    expected_turns: int = 30  # turns a game is expected to last (ours): the clock is spread over them
    min_turns_left: int = 15  # never plan for fewer turns than this
    margin: float = 10.0  # seconds never spent
    increment_share: float = 0.8  # share of the increment spent on the turn it arrives
    max_turn: float = 40.0  # most seconds one turn may take
    sense_share: float = 0.25  # share of a turn's budget for sensing (the rest for moving)
    panic: float = 20.0  # below this many seconds left: fastest fallbacks only
    spend_target: float = 0.0  # aim each turn at spending this share of its plan: budgets are stretched
    # by it over the share of their budgets recent turns spent, up to MAX_STRETCH (0: off)


@dataclass
class BotConfig:
    belief: BeliefConfig = field(default_factory=BeliefConfig)
    sense: SenseConfig = field(default_factory=SenseConfig)
    move: MoveConfig = field(default_factory=MoveConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    clock: ClockConfig = field(default_factory=ClockConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _convert(key: str, raw: Any, annotation: Any) -> Any:
    """``raw`` (a TOML value or a CLI string) as the field's type, or ValueError naming ``key``."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        is_none = raw is None or (isinstance(raw, str) and raw.lower() in ("none", "null", ""))
        if is_none and type(None) in args:
            return None
        errors = []
        for option in args:
            if option is type(None):
                continue
            try:
                return _convert(key, raw, option)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors))
    if origin is Literal:
        if raw not in args:
            raise ValueError(f"{key}: {raw!r} is not one of {', '.join(map(str, args))}")
        return raw
    if annotation is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
            return raw.lower() in ("true", "1", "yes", "on")
        raise ValueError(f"{key}: {raw!r} is not a boolean (true/false)")
    if annotation in (int, float, str):
        if isinstance(raw, bool) or (annotation is str and not isinstance(raw, str)):
            raise ValueError(f"{key}: {raw!r} is not a {annotation.__name__}")
        try:
            value = annotation(raw)
        except (TypeError, ValueError):
            raise ValueError(
                f"{key}: {raw!r} is not a{'n' if annotation is int else ''} {annotation.__name__}"
            ) from None
        if annotation is int and isinstance(raw, float) and raw != value:
            raise ValueError(f"{key}: {raw!r} is not an int")
        return value
    raise ValueError(f"{key}: unsupported type {annotation}")


def _set(config: BotConfig, key: str, raw: Any) -> None:
    section_name, _, field_name = key.partition(".")
    sections = {f.name: f for f in dataclasses.fields(config)}
    if section_name not in sections or not field_name:
        raise ValueError(f"unknown config key {key!r} (sections: {', '.join(sections)}; e.g. move.aggregate)")
    section = getattr(config, section_name)
    hints = typing.get_type_hints(type(section))
    if field_name not in hints:
        raise ValueError(f"unknown config key {key!r} (fields of {section_name}: {', '.join(hints)})")
    setattr(section, field_name, _convert(key, raw, hints[field_name]))


def validate(config: BotConfig) -> None:
    """Range checks the types can't express."""
    checks = [
        (config.belief.min_cap >= 1, "belief.min_cap must be >= 1"),
        (config.belief.max_cap >= config.belief.min_cap, "belief.max_cap must be >= belief.min_cap"),
        (config.move.top_k >= 1, "move.top_k must be >= 1"),
        (config.move.max_candidates >= 1, "move.max_candidates must be >= 1"),
        (
            1 <= config.move.min_boards <= config.move.max_boards,
            "need 1 <= move.min_boards <= move.max_boards",
        ),
        (
            0 <= config.move.min_depth <= config.engine.max_depth,
            "need 0 <= move.min_depth <= engine.max_depth",
        ),
        (config.move.fill_breadth >= 0, "move.fill_breadth must be >= 0"),
        (0.0 <= config.move.mix_min_weight <= 1.0, "move.mix_min_weight must be in [0, 1]"),
        (
            0.0 <= config.move.proposal_attacked_share <= 1.0,
            "move.proposal_attacked_share must be in [0, 1]",
        ),
        (0.0 <= config.move.near_tie <= 1.0, "move.near_tie must be in [0, 1]"),
        (0.0 < config.move.tail_share <= 1.0, "move.tail_share must be in (0, 1]"),
        (config.move.rational_temperature > 0.0, "move.rational_temperature must be > 0"),
        (
            0.0 <= config.sense.decision_attacked_share <= 1.0,
            "sense.decision_attacked_share must be in [0, 1]",
        ),
        (config.sense.decision_max_boards >= 0, "sense.decision_max_boards must be >= 0"),
        (config.sense.decision_boards_per_point >= 0, "sense.decision_boards_per_point must be >= 0"),
        (config.move.second_look >= 0, "move.second_look must be >= 0"),
        (0.0 < config.move.second_look_share < 1.0, "move.second_look_share must be in (0, 1)"),
        (config.move.second_look_boards >= 1, "move.second_look_boards must be >= 1"),
        (0.0 < config.move.blunder_board_weight <= 1.0, "move.blunder_board_weight must be in (0, 1]"),
        (0.0 <= config.sense.danger_min_share <= 1.0, "sense.danger_min_share must be in [0, 1]"),
        (config.sense.danger_always_below >= 0, "sense.danger_always_below must be >= 0"),
        (config.sense.danger_opening_turns >= 0, "sense.danger_opening_turns must be >= 0"),
        (config.sense.likely_boards >= 2, "sense.likely_boards must be >= 2"),
        (0.0 <= config.sense.danger_tolerance <= 1.0, "sense.danger_tolerance must be in [0, 1]"),
        (0.0 <= config.sense.raid_share <= 1.0, "sense.raid_share must be in [0, 1]"),
        (0.0 <= config.sense.queen_share <= 1.0, "sense.queen_share must be in [0, 1]"),
        (config.sense.queen_over_danger >= 0, "sense.queen_over_danger must be >= 0"),
        (config.sense.piece_over_danger >= 0, "sense.piece_over_danger must be >= 0"),
        (0.0 < config.sense.piece_share <= 1.0, "sense.piece_share must be in (0, 1]"),
        (config.belief.expansion_slack >= 1, "belief.expansion_slack must be >= 1"),
        (0.0 < config.move.proposal_share < 1.0, "move.proposal_share must be in (0, 1)"),
        (0.0 <= config.move.king_capture_share <= 1.0, "move.king_capture_share must be in [0, 1]"),
        (config.move.quiet_check_bonus >= 0, "move.quiet_check_bonus must be >= 0"),
        (0.0 <= config.move.quiet_check_odds < 1.0, "move.quiet_check_odds must be in [0, 1)"),
        (config.move.king_exposure_cp >= 0, "move.king_exposure_cp must be >= 0"),
        (config.move.probe_cp >= 0, "move.probe_cp must be >= 0"),
        (0.0 <= config.move.threat_share <= 1.0, "move.threat_share must be in [0, 1]"),
        (0.0 <= config.move.queen_share <= 1.0, "move.queen_share must be in [0, 1]"),
        (
            config.move.queen_share + config.move.threat_share <= 1.0,
            "move.queen_share + threat_share must be <= 1",
        ),
        (
            config.move.king_risk != "survivors" or config.move.aggregate == "min",
            "move.king_risk=survivors needs move.aggregate=min",
        ),
        (
            config.move.king_risk != "aggregate" or config.move.aggregate != "min",
            "move.king_risk=aggregate needs an averaging move.aggregate (not min)",
        ),
        (0.0 <= config.move.king_risk_share < 1.0, "move.king_risk_share must be in [0, 1)"),
        (
            config.move.king_risk_share == 0 or config.move.aggregate != "min",
            "move.king_risk_share needs an averaging move.aggregate (not min)",
        ),
        (config.move.opening_turns >= 0, "move.opening_turns must be >= 0"),
        (config.move.likely_pool >= 0, "move.likely_pool must be >= 0"),
        (config.move.prior_power >= 0, "move.prior_power must be >= 0"),
        (config.sense.prior_power >= 0, "sense.prior_power must be >= 0"),
        (0.0 < config.move.likely_pool_share < 1.0, "move.likely_pool_share must be in (0, 1)"),
        (config.move.king_capture_guard_turns >= 0, "move.king_capture_guard_turns must be >= 0"),
        (config.move.passive_senses >= 0, "move.passive_senses must be >= 0"),
        (config.move.passive_boards >= 1, "move.passive_boards must be >= 1"),
        (config.engine.workers >= 1, "engine.workers must be >= 1"),
        (config.engine.fixed_cost_probes >= 1, "engine.fixed_cost_probes must be >= 1"),
        (config.engine.depth >= 1, "engine.depth must be >= 1"),
        (config.engine.max_depth >= config.engine.depth, "engine.max_depth must be >= engine.depth"),
        (config.engine.nodes is None or config.engine.nodes >= 1, "engine.nodes must be >= 1"),
        (config.engine.timeout > 0, "engine.timeout must be > 0"),
        (0.0 < config.clock.sense_share < 1.0, "clock.sense_share must be in (0, 1)"),
        (config.clock.expected_turns >= 1, "clock.expected_turns must be >= 1"),
        (0.0 <= config.clock.spend_target <= 1.0, "clock.spend_target must be in [0, 1]"),
        (config.clock.margin >= 0, "clock.margin must be >= 0"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(message)


def load_config(path: str | Path | None = None, overrides: Iterable[str] = ()) -> BotConfig:
    """Defaults, then the TOML file's ``[section] field = value`` tables, then ``section.field=value``."""
    config = BotConfig()
    if path is not None:
        try:
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
        except OSError as exc:
            raise ValueError(f"cannot read config file {path}: {exc.strerror}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"config file {path} is not valid TOML: {exc}") from exc
        for section_name, table in data.items():
            if not isinstance(table, dict):
                raise ValueError(f"config file {path}: {section_name!r} must be a [table]")
            for field_name, value in table.items():
                _set(config, f"{section_name}.{field_name}", value)
    for override in overrides:
        key, sep, value = override.partition("=")
        if not sep:
            raise ValueError(f"override {override!r} is not key=value")
        _set(config, key.strip(), value.strip())
    validate(config)
    return config
