"""Games per hour through Ray (``--ray``) against a local match, both measured in one run here.

Why: ``--ray`` (``rbc_bot.cluster``) exists for SPRTs of thousands of games on many machines. Before
renting nodes we want what a game costs on Ray beyond the game itself, and what N nodes would give.
The script plays the same match twice, same seeds: on this machine (``run_match``, ``--jobs`` games at
once), then through a Ray head it starts on 127.0.0.1 (2 CPUs, fixed agent ports: the tests'
``start_head``; stopped after, on an error or Ctrl-C too), each game reserving ``--cpus-per-game``.
Ray runs its workers, hence the bots and their Stockfish, ``RAY_worker_niceness`` (15 by default) nicer
than the raylet: on a loaded machine that alone slows Ray's games. The head gets ``--worker-niceness``
(default 0: Ray's games at the local games' priority); give 15 to measure Ray as it ships.

    python benchmarks/cluster.py            # 8 games a backend at 120+2: ~5-10 min on 2 quiet cores
    python benchmarks/cluster.py --games 2 --seconds 10 --increment 0    # a check that it runs
    python benchmarks/cluster.py --json     # last line: one JSON object

Per backend: wall seconds, games/hour, the mean game (``wall_seconds`` of the records: the game alone,
timed where it is played) and the per-game overhead: slot-seconds not spent in a game, per game,
(games at once x wall - idle tail - sum of games) / games, where the idle tail is what the last games
leave of the run (wall - arrival of each of the last G records, G = games at once). The driver's CPU
seconds per game (this process: scheduling, landing the files, the records) bound a cluster's rate.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_ray import start_head, stop_head  # type: ignore[import-not-found]

from rbc_bot.cluster import RayBackend
from rbc_bot.commands.match import stop_on_sigterm
from rbc_bot.match import MatchSettings, match_jobs, run_match
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import Backend

NODES = (1, 2, 4, 8, 16)
MODEL = (
    "games/hour = min(nodes x CPUs per node / CPUs per game (rounded down) x 3600 / (mean game s + "
    "Ray's per-game overhead s), 3600 / driver CPU s per game)"
)


def play(settings: MatchSettings, out: Path, backend: Backend | None, slots: int) -> dict[str, Any]:
    """Play the match; its figures (see the module docstring). ``slots``: games the backend runs at once."""
    arrivals: list[float] = []
    cpu, started = time.process_time(), time.monotonic()
    summary = run_match(
        settings, out, on_record=lambda r, rs: arrivals.append(time.monotonic() - started), backend=backend
    )
    wall, cpu = time.monotonic() - started, time.process_time() - cpu
    records = summary["games"]
    n = len(records)
    games = [float(r["wall_seconds"]) for r in records]
    used = min(slots, n)
    idle = sum(wall - t for t in sorted(arrivals)[-used:])
    totals = summary["totals"]
    return {
        "games": n,
        "games_at_once": used,
        "wall_seconds": wall,
        "games_per_hour": n * 3600 / wall,
        "mean_game_seconds": statistics.fmean(games),
        "min_game_seconds": min(games),
        "max_game_seconds": max(games),
        "idle_tail_seconds": idle,
        "overhead_seconds_per_game": (used * wall - idle - sum(games)) / n,
        "driver_cpu_seconds_per_game": cpu / n,
        "mean_plies": statistics.fmean(r["plies"] for r in records),
        "wld": [totals["wins"], totals["losses"], totals["draws"]],
        "crashes": totals["crashes"],
        "timeouts": totals["timeouts"],
    }


def show(name: str, f: dict[str, Any]) -> None:
    print(
        f"{name:>5}: {f['games']} games, {f['games_at_once']} at once: {f['wall_seconds']:7.1f} s wall, "
        f"{f['games_per_hour']:6.1f} games/hour | game {f['mean_game_seconds']:.1f} s mean "
        f"({f['min_game_seconds']:.1f}-{f['max_game_seconds']:.1f}), {f['mean_plies']:.0f} plies | "
        f"overhead {f['overhead_seconds_per_game']:+.2f} s/game (idle tail {f['idle_tail_seconds']:.1f} s) "
        f"| driver CPU {f['driver_cpu_seconds_per_game']:.2f} s/game | W-L-D {'-'.join(map(str, f['wld']))}"
        f", crashes {f['crashes']}, timeouts {f['timeouts']}"
    )


def projection(ray: dict[str, Any], cpus_per_game: float, cpus_per_node: int) -> list[dict[str, Any]]:
    per_game = ray["mean_game_seconds"] + max(0.0, ray["overhead_seconds_per_game"])
    cap = 3600 / ray["driver_cpu_seconds_per_game"] if ray["driver_cpu_seconds_per_game"] > 0 else None
    rows = []
    for nodes in NODES:
        at_once = nodes * int(cpus_per_node // cpus_per_game)
        rate = at_once * 3600 / per_game
        rows.append(
            {
                "nodes": nodes,
                "cpus": nodes * cpus_per_node,
                "games_at_once": at_once,
                "games_per_hour": rate if cap is None else min(rate, cap),
                "driver_bound": cap is not None and cap < rate,
            }
        )
    return rows


def run_ray(
    settings: MatchSettings, out: Path, cpus_per_game: float, niceness: int, fig: dict[str, Any]
) -> dict[str, Any]:
    """Start a head, connect, check the node, play; the head is stopped whatever happens."""
    # Driver and head agree on no auth, as in the tests; the head's raylet reads the niceness.
    os.environ.update(
        RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0", RAY_worker_niceness=str(niceness)
    )
    temp = Path(tempfile.mkdtemp(prefix="rbc-raybench-"))
    process = None
    try:
        started = time.monotonic()
        process, port = start_head(out / "ray-head.log", temp)
        fig["head_start_seconds"] = time.monotonic() - started
        print(
            f"  Ray head on 127.0.0.1:{port} started in {fig['head_start_seconds']:.1f} s "
            f"(workers {niceness} nicer than the raylet)"
        )
        started = time.monotonic()
        # Connecting installs Ray's own SIGTERM handler (a stack dump, then death: no finally runs);
        # ours goes back on after it, so a kill stops the games and the head as Ctrl-C does.
        with RayBackend(f"127.0.0.1:{port}", cpus_per_game) as backend, stop_on_sigterm():
            fig["connect_seconds"] = time.monotonic() - started
            jobs = match_jobs(settings)
            started = time.monotonic()
            backend.check(jobs)  # probes the node once (a worker starts); run_match then skips it
            fig["node_check_seconds"] = time.monotonic() - started
            default = RayBackend(cpus_per_game=None).cpus_for(jobs[0])
            cpus = backend.ray.cluster_resources().get("CPU", 0)
            slots = int(cpus // cpus_per_game)
            print(
                f"  connected in {fig['connect_seconds']:.1f} s, node checked in "
                f"{fig['node_check_seconds']:.1f} s; a game reserves {cpus_per_game:g} CPUs (the default "
                f"reservation would be {default:g}: engine.workers + 1 per other bot), so {slots} games "
                f"at once on {cpus:g} CPUs"
            )
            return play(settings, out / "ray", backend, slots)
    finally:
        if process is not None:
            stop_head(process)
        shutil.rmtree(temp, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=8, help="games per backend, even (default: 8)")
    parser.add_argument("--seconds", type=float, default=120.0, help="clock per side (default: 120)")
    parser.add_argument("--increment", type=float, default=2.0, help="increment per move (default: 2)")
    parser.add_argument("--seed", type=int, default=300, help="pair k uses SEED+k, on both backends")
    parser.add_argument("--opponent", default="random", help="bot B (default: random)")
    parser.add_argument(
        "--set",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="our bot's settings (repeatable; default: engine.workers=1)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="games at once locally (default: 2)")
    parser.add_argument(
        "--cpus-per-game", type=float, default=1.0, help="CPUs a game reserves on Ray (default: 1)"
    )
    parser.add_argument(
        "--worker-niceness",
        type=int,
        default=0,
        help="RAY_worker_niceness of the head: 0 (default) runs Ray's games at the local games' "
        "priority; Ray's own default is 15",
    )
    parser.add_argument("--out", type=Path, default=None, help="keep the games here (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    ours = BotSpec("rbc_bot", tuple(args.set if args.set is not None else ["engine.workers=1"]))
    settings = MatchSettings(
        ours, BotSpec(args.opponent), args.games, args.seconds, args.increment, args.seed, args.jobs
    )
    try:
        settings.validate()
    except (ValueError, BotSpecError) as exc:
        parser.error(str(exc))
    out = args.out or Path(tempfile.mkdtemp(prefix="rbc-raybench-games-"))
    out.mkdir(parents=True, exist_ok=True)
    cpus_per_node = os.cpu_count() or 1
    print(
        f"{ours.name} vs {args.opponent}, {args.games} games a backend at {args.seconds:g}+"
        f"{args.increment:g}, seeds {args.seed}+, {cpus_per_node} CPUs here; games in {out}"
    )
    fig: dict[str, Any] = {"clock": f"{args.seconds:g}+{args.increment:g}", "cpus_per_node": cpus_per_node}
    fig.update(cpus_per_game=args.cpus_per_game, worker_niceness=args.worker_niceness)
    started, finished = time.monotonic(), False
    try:
        with stop_on_sigterm():
            fig["local"] = play(settings, out / "local", None, args.jobs)
            show("local", fig["local"])
            fig["ray"] = run_ray(settings, out, args.cpus_per_game, args.worker_niceness, fig)
            show("ray", fig["ray"])
            finished = True
    except KeyboardInterrupt:
        print("stopped (the Ray head, if started, is stopped)")
        return 130
    except (ValueError, AssertionError) as exc:  # the head did not start (start_head asserts), Ray
        # cannot connect, or a game needs more CPUs than the head has
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.out is None and finished:
            shutil.rmtree(out, ignore_errors=True)
        elif not finished:
            print(f"games and the Ray head's log kept in {out}")
    local, ray = fig["local"], fig["ray"]
    fig["ratio"] = ray["games_per_hour"] / local["games_per_hour"]
    fig["ray_extra_seconds_per_game"] = ray["overhead_seconds_per_game"] - local["overhead_seconds_per_game"]
    fig["seconds"] = time.monotonic() - started
    print(
        f"\nratio ray/local games per hour: {fig['ratio']:.3f} (ray {ray['games_per_hour']:.1f}, "
        f"local {local['games_per_hour']:.1f})"
    )
    print(
        f"Ray's per-game overhead: {ray['overhead_seconds_per_game']:+.2f} s/game, "
        f"{fig['ray_extra_seconds_per_game']:+.2f} s more than local; once per run: head start "
        f"{fig['head_start_seconds']:.1f} s, connect {fig['connect_seconds']:.1f} s, node check "
        f"{fig['node_check_seconds']:.1f} s (not in the games/hour)"
    )
    fig["projection"] = projection(ray, args.cpus_per_game, cpus_per_node)
    print(f"\nprojected, nodes of {cpus_per_node} CPUs, {args.cpus_per_game:g} CPUs a game: {MODEL}")
    print("| nodes | CPUs | games at once | games/hour |\n|---:|---:|---:|---:|")
    for row in fig["projection"]:
        bound = " (driver-bound)" if row["driver_bound"] else ""
        rate = f"{row['games_per_hour']:,.0f}{bound}"
        print(f"| {row['nodes']} | {row['cpus']} | {row['games_at_once']} | {rate} |")
    print(f"(whole benchmark: {fig['seconds']:.0f} s)")
    if args.json:
        print(json.dumps(round_floats(fig)))
    return 0


def round_floats(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: round_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [round_floats(v) for v in value]
    return value


if __name__ == "__main__":
    raise SystemExit(main())
