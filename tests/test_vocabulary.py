"""The model's closed vocabularies (model/state.py: Phase, Status, StreamKind, Via) hold in every
reachable state: mypy checks each value the model writes when it compiles, and this checks the
values random runs actually produce, including open-system arrivals and departures."""
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Arrive, Depart, apply, enabled_actions, initial_state
from model.history import Applied
from model.vocabulary import PHASES, STATUSES, STREAM_KINDS, VIAS
from simulations.explore.scope import default_system

SYSTEMS = [
    default_system(),
    default_system().replace(instances=2, lb="round_robin", store="local", buffer="local"),
    default_system().replace(on_404="fail", on_409="fail", buffer_keying="request_id"),
    default_system().replace(instances=2, messages_per_session=2, event_ids="per_session"),
]


def check(state) -> None:
    for client in state.clients:
        assert client.phase in PHASES
        if client.stream is not None:
            assert client.stream.kind in STREAM_KINDS
        assert all(item.via in VIAS for item in client.inflight)
    assert all(inst.status in STATUSES for inst in state.instances)


@settings(max_examples=80, deadline=None)
@given(system=st.sampled_from(SYSTEMS), policy=st.sampled_from(["naive", "strict", "sdk"]),
       choices=st.lists(st.integers(0, 60), max_size=30))
def test_every_reachable_state_speaks_the_vocabulary(system, policy, choices):
    state = initial_state(system)
    check(state)
    for choice in choices:
        actions = enabled_actions(state, system) + [Arrive()] + \
            [Depart(c) for c, client in enumerate(state.clients) if client.phase != "gone"]
        state, events = apply(state, actions[choice % len(actions)], system, policy)
        check(state)
        assert all(e.via in VIAS for e in events if isinstance(e, Applied))
