"""A seat whose start-up data never arrives (its game was stopped while starting it) says so in one
line, not a traceback; every other error in the forkserver still prints as before.

Each case runs in its own Python process: the forkserver and the hook are per process, and the
forkserver writes to the stderr of the process that started it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_seat_cut_off_by_its_stopping_parent_prints_one_line_not_a_traceback() -> None:
    # The race itself, made certain: the real forkserver of the seats forks a child for us and we close
    # the pipe its start-up data would come through, as a cancelled game does mid-start.
    done = run(
        """
        import os
        from multiprocessing import forkserver
        from rbc_bot.seats import mp_context

        mp_context()  # sets the seats' preload, hook included
        status, data = forkserver.connect_to_new_process([])
        os.close(data)
        pid = forkserver.read_signed(status)
        code = forkserver.read_signed(status)
        print(pid > 0, code)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1"]  # the child failed, as before: only its report changed
    assert "Traceback" not in done.stderr and "EOFError" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "was not started" in done.stderr, done.stderr


def test_without_the_hook_the_same_cut_off_prints_a_traceback() -> None:
    # What the hook replaces (and proof that the case above reproduces it): spawn's start-up reader on a
    # closed pipe, in a process without the hook.
    done = run(
        """
        import os
        from multiprocessing import spawn

        read, write = os.pipe()
        os.close(write)
        spawn._main(read, os.dup(read))
        """
    )
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "EOFError: Ran out of input" in done.stderr, done.stderr


def test_other_errors_still_reach_the_previous_hook() -> None:
    done = run(
        """
        import rbc_bot.forkserver_hooks
        raise EOFError("not a start-up: a bot's own error")
        """
    )
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "a bot's own error" in done.stderr, done.stderr
