"""``cluster-check [ADDRESS]``: one tiny task on every Ray node, reporting what each node has.

Why: a node without Stockfish, or with other rbc_bot code, would play games differently from the
driver. A match refuses such a node too, but this says so before anybody waits for a match: each
node's host, CPUs, Python, Ray, rbc_bot version and code fingerprint, and Stockfish.
"""

from __future__ import annotations

import argparse
from typing import Any

from rbc_bot.commands.common import RUNTIME, error

LOCAL = "local"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Run one tiny task on every node of a Ray cluster and report each node's host, CPUs, Python, "
        "Ray, rbc_bot version and code fingerprint (a hash of its .py files: it must match the "
        "driver's) and Stockfish. Exit status 1, naming the nodes, when a node lacks any of them."
    )
    parser.add_argument(
        "address",
        nargs="?",
        default=LOCAL,
        metavar="ADDRESS",
        help="auto, HOST:PORT or ray://HOST:10001 (default: start Ray on this machine)",
    )


def row(report: dict[str, Any]) -> str:
    code = f"{report.get('rbc_bot') or '-'} ({report.get('code') or '-'})"
    stockfish = report.get("stockfish") or "-"
    if report.get("stockfish_path"):
        stockfish += f" ({report['stockfish_path']})"
    cells = [report["node"] or "?", report.get("host") or "?", f"{report['cpus']:g}"]
    cells += [report.get("python") or "-", report.get("ray") or "-", code, stockfish]
    return "  ".join(str(c) for c in cells)


def run(args: argparse.Namespace) -> int:
    from rbc_bot import __version__
    from rbc_bot.cluster import connect, driver_fingerprint, node_name, probe_nodes

    try:
        ray, owned = connect(args.address)
    except ValueError as exc:
        return error(exc)
    try:
        reports = probe_nodes(ray)
    finally:
        if owned:
            ray.shutdown()
    cpus = sum(r["cpus"] for r in reports)
    print(f"Ray cluster {args.address}: {len(reports)} node{'s' * (len(reports) != 1)}, {cpus:g} CPUs")
    print("node  host  CPUs  python  ray  rbc_bot (code)  Stockfish (path)")
    for report in reports:
        print(row(report))
    print(f"driver: rbc_bot {__version__} (code {driver_fingerprint()}), ray {ray.__version__}")
    bad = [f"{node_name(r)}: {'; '.join(r['problems'])}" for r in reports if r["problems"]]
    if bad:
        return error(f"{len(bad)} node(s) cannot play: " + " | ".join(bad), RUNTIME)
    return 0
