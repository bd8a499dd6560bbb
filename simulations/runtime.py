"""Process settings the engines run under: how fast, never what they compute."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block; restore its previous state after.

    An exhaustive search keeps its frontier (up to hundreds of thousands of states, each a few
    dozen nested tuples) alive, and the cyclic collector traverses it again and again as the
    search allocates: about a sixth of the 2-instance scope's time. The search creates no
    reference cycles, so reference counting frees everything it drops; the collector resumes
    afterwards for whatever else the process does."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


#: allocations (net of deallocations) between two collections of the youngest generation while
#: a DES replication runs (CPython's default is 700)
RELAXED_GEN0_THRESHOLD = 20_000


@contextmanager
def cyclic_gc_relaxed() -> Iterator[None]:
    """Collect the youngest generation less often for the block; restore the thresholds after.

    A DES replication allocates hundreds of thousands of short-lived objects (events, states,
    history records), nearly all freed by reference counting as soon as they are done with;
    SimPy's processes and callbacks do form reference cycles, so the collector keeps running,
    only about thirty times less often (its share of a replication's instructions fell from
    3.0% to 1.8%)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], RELAXED_GEN0_THRESHOLD), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
