"""Processes as /proc shows them: what a test or the soak needs to see that nothing a bot started
outlives its game."""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def live_descendants(root: int) -> set[int]:
    """Every live process below ``root``'s own children (its multiprocessing forkserver and resource
    tracker, which outlive games by design): the seats, and whatever the bots started."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] != "Z":
                children.setdefault(stat[1], []).append(int(entry.name))
    found: set[int] = set()
    todo = list(children.get(root, []))
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def still_alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if (stat := _stat(pid)) is not None and stat[0] != "Z"}
