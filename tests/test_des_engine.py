"""The DES engine's own machinery: `first_of` (a wake-up or a timeout, whichever comes first)
unfolds a run exactly as SimPy's `wake | env.timeout(delay)` does, so replacing the condition
changed no record (the committed results' back-test checks the records themselves); a
client's reader applies its messages one latency apart, on the stream that carried them."""
from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Arrive, Deliver, Disconnect, Init, Reconnect
from simulations.des import config as dc
from simulations.des.components import ClientProcess
from simulations.des.runner import build_world
from simulations.des.world import first_of

DEFAULT = Path(__file__).resolve().parent.parent / "simulations/configs/rolling_restart.toml"

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


def _reading_log(policy: str, overrides: List[str]) -> Tuple[list, float]:
    """(time, slot, what) for every stream opened and message applied in a replication."""
    config = dc.load(DEFAULT, overrides, replications=1, policies=[policy], baseline=policy)
    world = build_world(config, policy, np.random.SeedSequence(7))
    applying, log = world.apply, []

    def recording(action):
        events = applying(action)
        kind = type(action)
        if kind is Deliver:
            log.append((world.env.now, action.client, "read"))
        elif kind in (Init, Reconnect) and world.state.clients[action.client].phase == "open":
            log.append((world.env.now, action.client, "open"))
        return events

    world.apply = recording
    world.env.run(until=config.timing.duration)
    return log, config.timing.latency


@pytest.mark.parametrize("policy", ["strict", "naive", "stateless"])
def test_the_reader_applies_one_message_per_latency_on_the_stream_it_read(policy):
    """A client applies what arrives one message per network latency, the first one latency
    after its stream opened: a reader tick scheduled for a stream that has closed since never
    applies a message of the next stream early. Frequent drops and restarts with local
    sessions make streams close and reopen (re-initialize at once after a 404) while ticks
    are due."""
    overrides = ["timing.duration=1800", "timing.drop_rate=0.05", "timing.restart_period=120",
                 "system.store=\"local\"", "system.buffer=\"local\""]
    log, latency = _reading_log(policy, overrides)
    since: dict = {}        # slot -> when its stream opened or it last applied a message
    reads = reopened = 0
    for now, slot, what in log:
        if what == "open":
            reopened += slot in since
        else:
            assert now - since[slot] >= latency - 1e-9, (now, slot, since[slot])
            reads += 1
        since[slot] = now
    assert reads > 500 and reopened > 50       # not vacuous: streams read, closed, reopened


def test_a_reader_tick_of_a_closed_stream_applies_nothing_on_the_next_one():
    """The client's process never reopens a stream sooner than one latency after it closed,
    so a tick due for the old stream comes first anyway; the reader does not rely on that.
    Here the stream is dropped and resumed at the very instant a tick is due soon: the
    resumed stream's first message is applied a full latency after it opened."""
    quiet = ["timing.arrival_rate=0", "timing.restart_period=0", "timing.drop_rate=0",
             "timing.client_restart_rate=0", "system.instances=1"]
    config = dc.load(DEFAULT, quiet, replications=1, policies=["naive"], baseline="naive")
    world = build_world(config, "naive", np.random.SeedSequence(3))
    arrived = world.apply(Arrive())[0]
    proc = ClientProcess(world, arrived.slot, arrived.client)
    env, latency = world.env, config.timing.latency
    while proc.reading is None or not world.state.clients[arrived.slot].applied:
        env.step()                       # until a message is applied and the next in flight
    env.run(until=env.now + latency / 2)
    client = world.state.clients[arrived.slot]
    world.apply(Disconnect(arrived.slot))
    world.apply(Reconnect(arrived.slot, world.route(client.token)))
    reopened = env.now
    assert world.state.clients[arrived.slot].inflight      # the replay is in flight
    proc.feed()
    applying, reads = world.apply, []
    world.apply = lambda action: (reads.append(env.now) if type(action) is Deliver else None,
                                  applying(action))[1]
    env.run(until=reopened + 2 * latency)
    assert reads and reads[0] >= reopened + latency - 1e-9, (reopened, reads)
