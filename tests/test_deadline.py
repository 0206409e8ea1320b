"""The wait for an engine's answer on a busy machine (rbc_bot.deadline): a starved engine is waited for,
a blocked or spinning one is hung. Real processes and a real Stockfish starved of its CPU; the
decision rule alone with scripted CPU states."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engine_helpers import hung_engine, silent_engine, spinning_engine

from rbc_bot import deadline
from rbc_bot.deadline import MAX_STARVED_WAIT, STARVED_STEP, CpuState, Deadline, cpu_state
from rbc_bot.engine import find_stockfish
from rbc_bot.uci import EngineFailure, SearchResult, UciProcess

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux's /proc")

SPIN = [sys.executable, "-c", "while True: pass"]


def threads(pid: int) -> list[int]:
    return [int(task) for task in os.listdir(f"/proc/{pid}/task")]


def starve(pid: int, hogs: int = 3) -> list[subprocess.Popen[bytes]]:
    """Pin every thread of ``pid`` to one CPU at the lowest priority (nice 19), beside ``hogs`` spinning
    processes at this test's priority (at nice 0 if the test runs at nice 10 or more): it gets well
    under 1 % of that CPU. Skips the test where that gap can't be made (nice 10 or more, not root)."""
    cpu = min(os.sched_getaffinity(0))
    for task in threads(pid):
        os.sched_setaffinity(task, {cpu})
        os.setpriority(os.PRIO_PROCESS, task, 19)
    spinners = [subprocess.Popen(SPIN) for _ in range(hogs)]
    for spinner in spinners:
        os.sched_setaffinity(spinner.pid, {cpu})
        if os.getpriority(os.PRIO_PROCESS, 0) >= 10:
            try:
                os.setpriority(os.PRIO_PROCESS, spinner.pid, 0)
            except PermissionError:
                stop(spinners)
                pytest.skip("running at nice 10 or more without root: nothing can be starved for this test")
    time.sleep(0.3)  # the spinners' Python starts up
    return spinners


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.kill()
        process.wait()


def test_cpu_state_tells_a_spinning_process_from_a_sleeping_one() -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    spinner = subprocess.Popen(SPIN)
    try:
        time.sleep(0.5)
        asleep, spinning = cpu_state(sleeper.pid), cpu_state(spinner.pid)
        assert asleep is not None and not asleep.runnable and asleep.seconds < 0.05
        assert spinning is not None and spinning.runnable and spinning.seconds > 0.0
    finally:
        stop([sleeper, spinner])
    assert cpu_state(spinner.pid) is None  # gone


MAX_SEARCHES = 30
"""Searches the starvation test may run before one has been starved past its timeout and a step. It
stops at the first; eight were once not enough on a quiet machine (the longest wait 0.44 s of 0.45)."""


@pytest.mark.timeout(120)
def test_a_starved_stockfish_is_waited_for_not_taken_for_hung(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stockfish crowded onto one CPU at the lowest priority answers 5 ms searches, some only long after
    their 0.2 s timeout: the wait goes on while it is starved, and every answer is taken. (A search
    right after an idle spell may still run at once: the scheduler favours a thread that slept, so
    searches follow each other until one has been starved. Starved this hard, an answer can take
    seconds: the cap on the wait is lifted, it is not what this test is about.)"""
    monkeypatch.setattr(deadline, "MAX_STARVED_WAIT", 60.0)
    engine = UciProcess(find_stockfish(None), hash_mb=16, timeout=5.0)
    spinners = starve(engine.pid)
    fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    results: list[SearchResult] = []
    waits: list[float] = []
    try:
        while len(waits) < MAX_SEARCHES and max(waits, default=0.0) <= 0.2 + STARVED_STEP:
            started = time.monotonic()
            engine.search([fen], "go movetime 5", lambda _, result: results.append(result), timeout=0.2)
            waits.append(time.monotonic() - started)
    finally:
        stop(spinners)
        engine.quit()
    assert max(waits) > 0.2 + STARVED_STEP  # past its timeout and a step: only the starvation rule waited
    assert len(results) == len(waits) and all(result.score is not None for result in results)


def test_an_answer_in_the_pipe_at_the_deadline_is_taken() -> None:
    """Our own process stalled past the deadline (a long garbage collection, a busy machine) while the
    engine answered: the answer is read, not taken for a hang."""
    engine = UciProcess(find_stockfish(None), hash_mb=16, timeout=5.0)
    try:
        engine.send("isready")
        time.sleep(0.3)  # the answer waits in the pipe; the wait below is already over
        assert engine.readline(Deadline(engine.pid, 0.0)) == "readyok"
    finally:
        engine.quit()


def test_a_blocked_engine_is_hung_at_its_timeout_without_a_step(tmp_path: Path) -> None:
    """An engine blocked on its input has no runnable thread: no CPU would help it, so it is not
    waited for past its timeout."""
    engine = UciProcess(hung_engine(tmp_path), hash_mb=16, timeout=5.0)
    try:
        with pytest.raises(EngineFailure, match=r"^no answer within 0\.2 s$") as failure:
            engine.search(["8/8/8/8/8/8/8/K6k w - - 0 1"], "go depth 1", lambda *_: None, timeout=0.2)
        assert failure.value.timed_out
    finally:
        engine.kill()


def test_a_spinning_engine_is_hung_once_it_has_had_the_cpu(tmp_path: Path) -> None:
    """An engine spinning without answering is runnable, so the first look past its timeout gives it a
    step; once it has had the CPU for half a step and still not answered, it is hung: well before the
    cap on waiting for a busy machine (on a quiet machine one step after its timeout)."""
    engine = UciProcess(spinning_engine(tmp_path), hash_mb=16, timeout=5.0)
    try:
        with pytest.raises(EngineFailure) as failure:
            engine.search(["8/8/8/8/8/8/8/K6k w - - 0 1"], "go depth 1", lambda *_: None, timeout=0.2)
    finally:
        engine.kill()
    assert failure.value.timed_out
    found = re.fullmatch(
        r"no answer within 0\.2 s \+ ([0-9.]+) s \(checking for a busy machine\)", str(failure.value)
    )
    assert found is not None and STARVED_STEP <= float(found[1]) < MAX_STARVED_WAIT


def scripted(states: list[CpuState | None], monkeypatch: pytest.MonkeyPatch) -> None:
    """``cpu_state`` answers ``states`` in turn."""
    answers = iter(states)
    monkeypatch.setattr(deadline, "cpu_state", lambda _pid: next(answers))


def past(wait: Deadline) -> float:
    """``wait.left()`` once its current end has passed."""
    time.sleep(max(wait.left(), 0.0) + 0.001)
    return wait.left()


def test_the_rule_extends_while_starved_and_stops_at_the_spin_or_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(deadline, "STARVED_STEP", 0.01)
    monkeypatch.setattr(deadline, "MAX_STARVED_WAIT", 0.03)
    scripted([CpuState(True, 1.0), CpuState(True, 1.0), CpuState(True, 1.1)], monkeypatch)
    spinning = Deadline(1, 0.01)
    assert past(spinning) == pytest.approx(0.01, abs=0.005)  # the first look gives a step
    assert past(spinning) > 0  # no CPU gained in that step: starved
    assert past(spinning) == 0.0  # 0.1 s of CPU in a 0.01 s step: spinning
    scripted([CpuState(True, 1.0)] * 4, monkeypatch)
    starved = Deadline(1, 0.01)
    assert [past(starved) > 0 for _ in range(4)] == [True, True, True, False]  # the cap: 3 steps
    scripted([None], monkeypatch)
    assert past(Deadline(1, 0.01)) == 0.0  # no /proc: the timeout alone


def test_a_call_shares_its_patience_and_none_means_the_timeout_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This engine answers each search 0.5 s after its ``go``, past the 0.2 s timeout, and the kernel is
    made to say it is starved: each look past a timeout extends the wait by a 0.2 s step, so a search
    takes two steps (the answer comes mid-step). With 1 s of patience for the call the first two
    searches use 0.4 s each and the third, left 0.2 s, fails after one step: the wait is bounded per
    call, not per search (else three searches of a starved engine would cost 6 s). With no patience (a
    bot in panic) the first search fails at its timeout."""
    monkeypatch.setattr(deadline, "STARVED_STEP", 0.2)
    monkeypatch.setattr(deadline, "cpu_state", lambda _pid: CpuState(True, 1.0))
    answer = 'sleep 0.5; echo "info depth 1 score cp 10 pv a1a2"; echo "bestmove a1a2"'
    slow = silent_engine(tmp_path, "Slowfish", on_go=answer)
    fens = ["8/8/8/8/8/8/8/K6k w - - 0 1"] * 3
    answered: list[int] = []
    engine = UciProcess(slow, hash_mb=16, timeout=5.0)
    try:
        with pytest.raises(EngineFailure, match=r"^no answer within 0\.2 s \+ 0\.2 s "):
            engine.search(fens, "go depth 1", lambda i, _: answered.append(i), timeout=0.2, patience=1.0)
    finally:
        engine.kill()
    assert answered == [0, 1]
    engine = UciProcess(slow, hash_mb=16, timeout=5.0)
    try:
        with pytest.raises(EngineFailure, match=r"^no answer within 0\.2 s$"):
            engine.search(fens[:1], "go depth 1", lambda *_: None, timeout=0.2, patience=0.0)
    finally:
        engine.kill()
