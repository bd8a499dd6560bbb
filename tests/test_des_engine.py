"""The DES engine's own machinery: `first_of` (a wake-up or a timeout, whichever comes first)
unfolds a run exactly as SimPy's `wake | env.timeout(delay)` does, so replacing the condition
changed no record (the committed results' back-test checks the records themselves)."""
from typing import List, Tuple

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.des.world import first_of

#: one waiter: the delays of its successive waits
waits = st.lists(st.integers(1, 9), min_size=1, max_size=6)
#: a wake-up: (time, waiter); several may fall at the same time or on a waiter not waiting
wakeups = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), max_size=12)


def _trace(delays: List[List[int]], wakes: List[Tuple[int, int]], cheap: bool) -> List[tuple]:
    """Every resumption of every process, in the order SimPy ran them: (time, who, step)."""
    env = simpy.Environment()
    trace: List[tuple] = []
    events = [env.event() for _ in delays]

    def waiter(k: int):
        for step, delay in enumerate(delays[k]):
            events[k] = env.event()
            if cheap:
                yield first_of(env, events[k], delay)
            else:
                yield events[k] | env.timeout(delay)
            trace.append((env.now, k, step))

    def waker():
        for at, k in sorted(wakes):
            if at > env.now:
                yield env.timeout(at - env.now)
            k %= len(delays)
            if not events[k].triggered:
                events[k].succeed()
            trace.append((env.now, "wake", k))

    for k in range(len(delays)):
        env.process(waiter(k))
    env.process(waker())
    env.run()
    return trace


@settings(max_examples=300, deadline=None)
@given(st.lists(waits, min_size=1, max_size=4), wakeups)
def test_first_of_resumes_every_process_exactly_when_a_condition_would(delays, wakes):
    assert _trace(delays, wakes, cheap=True) == _trace(delays, wakes, cheap=False)


def test_first_of_is_not_vacuous():
    """Both ways out are taken: a wake-up before the timer, and the timer before any wake-up."""
    trace = _trace([[5, 5]], [(2, 0)], cheap=True)
    assert trace == [(2, "wake", 0), (2, 0, 0), (7, 0, 1)]
