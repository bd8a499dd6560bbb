"""view_fields (what the guard reads off a fleet registry and its own session table) is the
model's build_view rule: the same registry_has_session, held_locally, recreates and generation
on any registry and holdings, and along random model runs."""
from hypothesis import given
from hypothesis import strategies as st

from mcp_resume_guard import SessionRecord, view_fields
from model import SystemConfig, apply, enabled_actions, initial_state
from model.observe import build_view
from model.protocol import ResumeRequest
from model.servers import Instance, LiveSession
from model.servers import SessionRecord as ModelRecord
from model.state import State


def model_fields(state, config, instance, token):
    view = build_view(state, config, instance, ResumeRequest(token, None))
    return view.registry_has_session, view.held_locally, view.recreates, view.generation


def our_fields(state, config, instance, token):
    found = dict(state.registry).get(token)
    live = dict(state.instances[instance].sessions).get(token)
    record = None if found is None else SessionRecord(str(token), found.generation, 0.0, 0.0)
    return view_fields(record, None if live is None else live.generation,
                       shared=config.store == "shared")


GENERATION = st.one_of(st.none(), st.integers(1, 3))


@given(store=st.sampled_from(["shared", "local"]),
       registry=st.tuples(GENERATION, GENERATION),
       held=st.tuples(st.tuples(GENERATION, GENERATION), st.tuples(GENERATION, GENERATION)))
def test_view_fields_matches_build_view_on_any_registry_and_holdings(store, registry, held):
    config = SystemConfig(instances=2, store=store)
    instances = tuple(Instance("up", 1, tuple(
        (token, LiveSession(0, 0, gen, 0, 0)) for token, gen in enumerate(gens, 1)
        if gen is not None)) for gens in held)
    state = State((), instances, tuple((token, ModelRecord(0, 0, gen))
                                       for token, gen in enumerate(registry, 1) if gen is not None))
    for instance in range(2):
        for token in (1, 2):
            assert our_fields(state, config, instance, token) == \
                model_fields(state, config, instance, token)


@given(store=st.sampled_from(["shared", "local"]), gate=st.sampled_from(["naive", "strict"]),
       picks=st.lists(st.integers(0, 10 ** 6), max_size=40))
def test_view_fields_matches_build_view_along_model_runs(store, gate, picks):
    """Random walks of the model (the naive gate recreates sessions on another instance)."""
    config = SystemConfig(instances=2, clients=2, messages_per_session=4, messages_per_call=2,
                          store=store)
    state = initial_state(config)
    for pick in picks:
        actions = enabled_actions(state, config)
        if not actions:
            break
        state, _ = apply(state, actions[pick % len(actions)], config, gate)
        for instance in range(config.instances):
            for token in range(1, state.next_token + 1):
                assert our_fields(state, config, instance, token) == \
                    model_fields(state, config, instance, token)


def test_view_fields_on_the_cases_by_name():
    rec = SessionRecord("s", 2, 0.0, 0.0)
    assert view_fields(rec, 2, shared=True) == (True, True, False, 2)
    assert view_fields(rec, 1, shared=True) == (True, False, True, 3)     # stale: recreates
    assert view_fields(rec, None, shared=True) == (True, False, True, 3)
    assert view_fields(None, 1, shared=True) == (False, False, False, None)
    assert view_fields(rec, 1, shared=False) == (True, True, False, 1)
    assert view_fields(None, None, shared=False) == (False, False, False, None)
