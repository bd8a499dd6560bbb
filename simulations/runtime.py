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
