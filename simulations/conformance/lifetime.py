"""No process the harness starts outlives it: on Linux each child asks the kernel for a
SIGTERM when its parent dies (even by SIGKILL)."""
from __future__ import annotations

import ctypes
import signal

PR_SET_PDEATHSIG = 1      # linux/prctl.h


def die_with_the_harness() -> None:
    """In a child (a server before exec, a server forked from the template, or a worker of
    `parallel.run_units` as it starts): on Linux, SIGTERM it if its parent dies (even by
    SIGKILL), so no server, nginx or worker outlives an interrupted run. Linux ties this to the
    forking thread: start processes from the main thread only."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):   # not Linux: the context manager still stops them
        pass
