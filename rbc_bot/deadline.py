"""How long to wait for an engine's answer on a machine that may be busy.

A search that overruns its time counts as hung and its engine is restarted (:mod:`rbc_bot.engine`).
On a loaded machine (matches side by side, a tournament's parallel games) an engine can sit runnable
for half a second without getting a CPU; taking that for a hang costs a restart, and a second one in a
row puts the game on material scoring. So a wait past its timeout goes on while the engine is kept
from a CPU: one of its threads runnable (state ``R`` in ``/proc/PID/task/TID/stat``) yet hardly any
CPU time gained since the last look. A blocked engine (no thread runnable) is hung at its timeout; a
spinning one (runnable and getting the CPU) one :data:`STARVED_STEP` later. Where the kernel doesn't
say (no ``/proc``), the wait ends at the timeout.
"""

from __future__ import annotations

import dataclasses
import os
import time

STARVED_STEP = 0.25
"""Seconds a wait is extended by, each time the engine is found starved after its timeout."""
STARVED_SHARE = 0.5
"""The engine counts as starved when, runnable, it got less than this share of the last step's time
on a CPU (all its threads together)."""
MAX_STARVED_WAIT = 2.0
"""Seconds the waits of one search call may be extended by in all (then the engine counts as hung, as
before): a machine starved for longer costs a call at most this much before the usual restart, which
a turn's clock (5 s of increment) can afford. A bot short of clock waits less (``patience``)."""
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclasses.dataclass(frozen=True)
class CpuState:
    """What a process's threads are doing: whether one is running or waiting for a CPU, and the CPU
    seconds they have used."""

    runnable: bool
    seconds: float


def cpu_state(pid: int) -> CpuState | None:
    """The state of process ``pid``'s threads, or None where the kernel doesn't say (no ``/proc``,
    the process gone)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    runnable, ticks, read = False, 0, 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", encoding="ascii", errors="replace") as stat:
                fields = stat.read().rpartition(")")[2].split()  # the name before ")" may hold spaces
            state, utime, stime = fields[0], int(fields[11]), int(fields[12])
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended since the listing
        runnable = runnable or state == "R"
        ticks += utime + stime
        read += 1
    return CpuState(runnable, ticks / _TICKS) if read else None


class Deadline:
    """The end of a wait for process ``pid``'s answer: ``timeout`` seconds from now, extended by
    :data:`STARVED_STEP` at a time while the process is kept from a CPU (module docstring), by
    ``patience`` seconds at most (None: :data:`MAX_STARVED_WAIT`). Cheap to make: nothing is read
    from ``/proc`` until the timeout has passed."""

    def __init__(self, pid: int, timeout: float, patience: float | None = None) -> None:
        self.pid = pid
        self.timeout = timeout
        self.patience = MAX_STARVED_WAIT if patience is None else max(0.0, patience)
        self.extended = 0.0
        self._at = time.monotonic() + timeout
        self._cpu: float | None = None  # its CPU seconds at the last look past the timeout
        self._checked = 0.0

    def left(self) -> float:
        """Seconds left to wait (0.0 when the wait is over)."""
        now = time.monotonic()
        if now < self._at:
            return self._at - now
        if self.extended >= self.patience:
            return 0.0
        state = cpu_state(self.pid)
        if state is None or not state.runnable:
            return 0.0  # blocked (or gone): no CPU would help it
        # The first look can't know how the wait went so far: it gives one step to find out.
        if self._cpu is not None and state.seconds - self._cpu >= STARVED_SHARE * (now - self._checked):
            return 0.0  # it had the CPU and still didn't answer: spinning
        self._cpu, self._checked = state.seconds, now
        self._at = now + STARVED_STEP
        self.extended += STARVED_STEP
        return STARVED_STEP

    def describe(self) -> str:
        """What the wait was, for the message of a failed one."""
        if not self.extended:
            return f"no answer within {self.timeout:g} s"
        return f"no answer within {self.timeout:g} s + {self.extended:g} s (checking for a busy machine)"
