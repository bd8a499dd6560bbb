"""The clients' faults on one clock (simulations/des/faults.py): each fault acts at exactly the
time a SimPy timer of its own would have fired, in the same order, a departed client's faults
do nothing, and SimPy's queue holds one timer for all of them. (tests/test_optimisations_off.py
compares whole DES replications with one timer per fault.)"""
import math

import simpy
from hypothesis import given
from hypothesis import strategies as st

from simulations.des.faults import At, FaultClock

times = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)


def test_a_delay_at_a_time_is_that_time_where_no_float_delay_is():
    now, due = 2.0 ** -52, 2.0 + 2.0 ** -51   # the sum of now and any delay near due - now
    assert all(now + math.nextafter(due - now, toward) != due      # rounds to a neighbour
               for toward in (-math.inf, math.inf)) and now + (due - now) != due
    env = simpy.Environment(initial_time=now)
    fired = []
    simpy.Timeout(env, At(due)).callbacks.append(lambda _event: fired.append(env.now))
    env.run()
    assert fired == [due]


@given(times, times)
def test_a_timer_set_at_a_time_fires_at_exactly_that_time(a, b):
    now, due = min(a, b), max(a, b)
    env = simpy.Environment(initial_time=now)
    fired = []
    simpy.Timeout(env, At(due), "x").callbacks.append(
        lambda event: fired.append((env.now, event.value)))
    env.run()
    assert fired == [(due, "x")]


class _Client:
    def __init__(self):
        self.present = True


class _Faults:
    """Stands for a client's faults: records when each of its faults acted."""

    def __init__(self, env, name, acted):
        self.env, self.name, self.acted = env, name, acted
        self.client = _Client()

    def fault(self, kind):
        if self.client.present:
            self.acted.append((self.env.now, self.name, kind))


def _queued_timers(env):
    return sum(1 for *_, event in env._queue if isinstance(event, simpy.Timeout))


@given(st.lists(st.tuples(st.floats(0.0, 100.0), st.booleans()), min_size=1, max_size=12))
def test_faults_act_in_time_order_and_departed_clients_faults_do_nothing(draws):
    env, acted = simpy.Environment(), []
    clock = FaultClock(env)
    everyone = []
    for i, (gap, leaves) in enumerate(draws):
        faults = _Faults(env, i, acted)
        everyone.append((faults, gap, leaves))
        clock.add(faults, "drop", gap)
    for faults, _, leaves in everyone:
        if leaves:
            faults.client.present = False
    assert _queued_timers(env) <= len(draws)
    env.run()
    expected = sorted((gap, i) for i, (gap, leaves) in enumerate(draws) if not leaves)
    assert [(t, name) for t, name, _ in acted] == expected
    assert not clock.pending and env.now <= max(gap for gap, _ in draws)


def test_one_timer_waits_for_all_faults_until_an_earlier_one_is_drawn():
    env, acted = simpy.Environment(), []
    clock = FaultClock(env)
    for i, gap in enumerate((50.0, 70.0, 90.0, 60.0)):   # none earlier than the first
        clock.add(_Faults(env, i, acted), "restart", gap)
    assert _queued_timers(env) == 1
    clock.add(_Faults(env, 4, acted), "drop", 10.0)     # earlier: a new timer, the old void
    assert _queued_timers(env) == 2 and clock.armed == 10.0
    env.run()
    assert [(t, name) for t, name, _ in acted] == [(10.0, 4), (50.0, 0), (60.0, 3), (70.0, 1),
                                                     (90.0, 2)]


def test_no_timer_is_set_for_a_departed_clients_fault():
    env, acted = simpy.Environment(), []
    clock = FaultClock(env)
    stays, leaves, stays_too = (_Faults(env, name, acted) for name in "abc")
    for faults, gap in ((stays, 10.0), (leaves, 20.0), (stays_too, 30.0)):
        clock.add(faults, "drop", gap)
    leaves.client.present = False
    times = []
    while env.peek() < math.inf:
        env.step()
        times.append(env.now)
    assert times == [10.0, 30.0] and [name for _, name, _ in acted] == ["a", "c"]
