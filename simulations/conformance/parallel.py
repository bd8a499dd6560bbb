"""Independent conformance units (a case on a server, a fleet cell, a finding's replay, one
server's differential run) side by side in worker processes.

Every unit starts its own processes on ephemeral loopback ports and keeps its logs in its own
folder, so units do not meet; most of a unit's time is spent waiting on real servers (a stream
that must stay quiet, a process starting), so two or three run in about the time of one. With
one worker everything runs in this process, in order, as before. Results come back in the order
of the units whatever order they finish in; `progress` sees each as it finishes.

A worker is a child of the harness that dies with it (SIGTERM on the harness's death, SIGKILL
included), and the servers a worker starts die with the worker, so nothing outlives a run.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .lifetime import die_with_the_harness


def run_units(function: Callable[..., Any], units: Sequence[Tuple[Any, ...]], workers: int,
              progress: Optional[Callable[[Any], None]] = None) -> List[Any]:
    """`[function(*unit) for unit in units]`, on `workers` processes (a module-level function
    and picklable arguments and results); `progress(result)` as each finishes."""
    if workers <= 1 or len(units) <= 1:
        results = []
        for unit in units:
            results.append(function(*unit))
            if progress is not None:
                progress(results[-1])
        return results
    found: List[Any] = [None] * len(units)
    context = multiprocessing.get_context("spawn")   # no state of the harness leaks in
    with ProcessPoolExecutor(min(workers, len(units)), mp_context=context,
                             initializer=die_with_the_harness) as pool:
        pending = {pool.submit(function, *unit): k for k, unit in enumerate(units)}
        try:
            for future in as_completed(pending):
                found[pending[future]] = future.result()
                if progress is not None:
                    progress(found[pending[future]])
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return found
