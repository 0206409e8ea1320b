"""Installed in the seats' forkserver (a preload module): a seat whose start-up was cut off says so in
one line instead of a traceback.

A seat is a process forked from the forkserver, which then reads the pickled bot from the process
that asked for it. When that process is stopped while starting a seat (a cancelled Ray game, a
Ctrl-C between two games), the new process finds its pipe closed and multiprocessing prints
``EOFError: Ran out of input`` with a traceback onto the forkserver's stderr, which is the match's
(or, through Ray, the driver's). Nothing was lost: the seat never started and the game that wanted
it is being dropped. Importing this module replaces ``sys.excepthook`` in the importing process, so
only the forkserver imports it; every other exception still reaches the previous hook.
"""

from __future__ import annotations

import pickle
import sys
from types import TracebackType

CUT_OFF = (EOFError, pickle.UnpicklingError)
"""What reading a seat's start-up data raises when the sender stopped before or while sending it."""
START_UP = "_main"
"""multiprocessing.spawn's function that reads a new process's start-up data."""


def cut_off_at_start(kind: type[BaseException], traceback: TracebackType | None) -> bool:
    """Whether the exception is a new process's start-up data ending early (raised inside spawn._main)."""
    if not issubclass(kind, CUT_OFF):
        return False
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if code.co_name == START_UP and code.co_filename.endswith("spawn.py"):
            return True
        traceback = traceback.tb_next
    return False


def quiet_cut_off_start(
    kind: type[BaseException], value: BaseException, traceback: TracebackType | None
) -> None:
    if cut_off_at_start(kind, traceback):
        sys.stderr.write(f"a bot process was not started: the game starting it stopped ({kind.__name__})\n")
        return
    previous_hook(kind, value, traceback)


previous_hook = sys.excepthook
sys.excepthook = quiet_cut_off_start
