"""Traces agree with themselves: what a gate says about the cursor matches the position printed
beside it, and the sequence diagram shows every buffer drop the narrative shows."""
import random

import pytest

from model import apply, enabled_actions, initial_state
from model import history as h
from model.view import ABOVE_HWM, AT_FLOOR, IN_BUFFER, IN_RANGE
from simulations.explore.diagram import step_labels
from simulations.explore.scope import default_system
from simulations.render import describe_event

SYSTEMS = [default_system(),
           default_system().replace(buffer="local", buffer_keying="session",
                                    event_ids="per_session", instances=2, buffer_capacity=1,
                                    messages_per_session=3),
           default_system().replace(store="local", event_ids="tagged", messages_per_session=3,
                                    buffer_capacity=1)]


def walks(system, policy, count=60, steps=60, seed=7):
    """Histories of random walks (events per step)."""
    rng = random.Random(seed)
    for _ in range(count):
        state = initial_state(system)
        for _ in range(steps):
            actions = enabled_actions(state, system)
            if not actions:
                break
            result = apply(state, rng.choice(actions), system, policy)
            state = result.state
            yield result.events


@pytest.mark.parametrize("policy", ["range", "generation", "provenance", "strict"])
@pytest.mark.parametrize("system", SYSTEMS, ids=["default", "local-buffers", "local-store"])
def test_a_gates_reason_agrees_with_the_cursor_position_it_prints(policy, system):
    seen = 0
    for events in walks(system, policy):
        for event in events:
            if isinstance(event, h.Decided) and event.reason:
                if "E within [floor, hwm]" in event.reason:
                    assert event.position in (IN_BUFFER, AT_FLOOR, IN_RANGE), event
                    seen += 1
                if "above the high-water mark" in event.reason:
                    assert event.position == ABOVE_HWM, event
    if policy in ("range", "generation") and system is SYSTEMS[0]:
        assert seen, "no admitted range check: the test would be vacuous"


@pytest.mark.parametrize("system", SYSTEMS[1:], ids=["local-buffers", "local-store"])
def test_every_buffer_drop_the_narrative_tells_is_drawn(system):
    drops = 0
    for events in walks(system, "naive", count=30):
        told = " ".join(line for e in events for line in describe_event(e, system))
        drawn = " ".join(step_labels(events))
        for event in events:
            if isinstance(event, h.Emitted) and event.dropped is not None:
                drops += 1
                assert "floor rises" in told and "floor rises" in drawn
            if isinstance(event, h.BufferCompacted):
                assert "drop" in drawn
    assert drops, "no walk filled a buffer: the test would be vacuous"
