"""The frontier's states share one object per equal part (simulations.explore.interning).

Interning must change which objects hold a state's values, never the values: an interned state
equals the state it replaces and keeps its parent's own parts. And it must do what it is for:
equal parts of the states in a frontier, or in the frontiers of searches sharing transitions,
are one object. (tests/test_optimisations_off.py compares whole results with it switched off.)
"""
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import configs

import simulations.explore.interning as interning
from model import enabled_actions, initial_state, resolve_gate
from model.parts import parts_of
from model.transitions import successor
from simulations.explore.frontier import Search
from simulations.explore.interning import Interner
from simulations.explore.scope import Scope
from simulations.explore.search import Exploration
from simulations.explore.shared import SharedTransitions

STATE_PARTS = ("clients", "instances", "registry", "buffers", "affinity", "owners", "records")
PARTS_PARTS = ("clients", "instances", "naming")


def _walk(config, choices, interner, start=None):
    """The states and parts of a walk from `start` (a state and its parts; the initial state)
    the choices pick among the enabled actions, each step interned against its interned
    parent, as the frontier does. Returns (raw state, raw parts, interned state, interned
    parts, interned parent, interned parent's parts) per step."""
    gate = resolve_gate("strict")
    if start is None:
        state = initial_state(config)
        start = state, parts_of(state)
    state, parts = start
    steps = []
    for choice in choices:
        actions = enabled_actions(state, config)
        if not actions:
            break
        new_state, _ = successor(state, actions[choice % len(actions)], config, gate)
        new_parts = parts_of(new_state, state, parts)
        kept_state = interner.state(new_state, state)
        kept_parts = interner.parts(new_parts, parts)
        steps.append((new_state, new_parts, kept_state, kept_parts, state, parts))
        state, parts = kept_state, kept_parts
    return steps


def _interned_or_parents(value, before, interner):
    """`value` is `before` itself or the interner's object for its value."""
    return value is before or interner.table.get(value) is value


@settings(max_examples=60, deadline=None)
@given(configs(), st.lists(st.integers(0, 50), min_size=1, max_size=25))
def test_an_interned_state_is_the_state_made_of_shared_objects(config, choices):
    """Every interned state and its parts equal the ones the transition built (hash too);
    each of their parts is the parent's own object or the interner's. Walked twice, the same
    actions build equal states from different objects: the second walk's states are made of
    the very objects of the first's (from the one initial state, as a search has one)."""
    interner = Interner()
    state0 = initial_state(config)
    start = state0, parts_of(state0)
    first = _walk(config, choices, interner, start)
    second = _walk(config, choices, interner, start)
    assert len(first) == len(second)
    for raw, raw_parts, kept, kept_parts, parent, parent_parts in first + second:
        assert kept == raw and hash(kept) == hash(raw)
        assert kept_parts == raw_parts and hash(kept_parts) == hash(raw_parts)
        assert kept.rr == raw.rr and kept.serial == raw.serial
        for name in STATE_PARTS:
            assert _interned_or_parents(getattr(kept, name), getattr(parent, name), interner)
        for name in PARTS_PARTS:
            assert _interned_or_parents(getattr(kept_parts, name), getattr(parent_parts, name),
                                        interner)
        for k, client in enumerate(kept.clients):
            before = parent.clients[k] if k < len(parent.clients) else None
            assert _interned_or_parents(client, before, interner)
    for one, other in zip(first, second):
        for name in STATE_PARTS:
            assert getattr(one[2], name) is getattr(other[2], name)
        for name in PARTS_PARTS:
            assert getattr(one[3], name) is getattr(other[3], name)


def test_switched_off_the_interner_returns_what_it_is_given(monkeypatch):
    config = Scope().system
    steps = _walk(config, [0, 1, 2], Interner())
    monkeypatch.setattr(interning, "INTERNING", False)
    interner = Interner()
    for raw, raw_parts, _, _, parent, parent_parts in steps:
        assert interner.state(raw, parent) is raw
        assert interner.parts(raw_parts, parent_parts) is raw_parts
    assert not interner.table


def _distinct(frontiers):
    """Per kind of part: (objects, values) over the states and parts of `frontiers`."""
    counts = {}
    for frontier in frontiers:
        for entry in frontier:
            held = [("client", c) for c in entry.state.clients] + \
                [("instance", i) for i in entry.state.instances] + \
                [("buffers", entry.state.buffers), ("clients", entry.state.clients),
                 ("client parts", entry.parts.clients)]
            for kind, value in held:
                objects, values = counts.setdefault(kind, (set(), set()))
                objects.add(id(value))
                values.add(value)
    return {kind: (len(objects), len(values)) for kind, (objects, values) in counts.items()}


def _layers(searches, shared, layers):
    for depth in range(layers):
        for search in searches:
            search.expand_layer(depth, shared)


@pytest.mark.parametrize("on", [True, False])
def test_a_frontier_holds_one_object_per_equal_part(on, monkeypatch):
    """Eleven layers into the two-instance scope, every part of the frontier's states (each
    client, instance, buffer map, clients tuple and client parts) is one object per value;
    switched off, the same frontier holds many more objects than values."""
    monkeypatch.setattr(interning, "INTERNING", on)
    scope = Scope()
    scope = replace(scope, system=scope.system.replace(instances=2))
    search = Search(scope, resolve_gate("strict"), True, False,
                    Exploration(scope, "strict", True))
    _layers([search], None, 11)
    counts = _distinct([search.frontier])
    assert len(search.frontier) > 10_000
    if on:
        assert all(objects == values for objects, values in counts.values()), counts
    else:
        objects, values = counts["client"]
        assert objects > 10 * values, counts


def test_searches_sharing_transitions_share_the_objects():
    """Searches of one scope under several gates intern into their SharedTransitions' one
    interner: across all their frontiers, one object per value."""
    scope = Scope()
    shared = SharedTransitions()
    searches = [Search(scope, resolve_gate(name), True, False,
                       Exploration(scope, name, True), budgets=shared.budgets)
                for name in ("naive", "generation", "strict")]
    _layers(searches, shared, 12)
    frontiers = [search.frontier for search in searches]
    assert all(len(frontier) > 500 for frontier in frontiers)
    counts = _distinct(frontiers)
    assert all(objects == values for objects, values in counts.values()), counts
    shared_states = {id(e.state) for e in frontiers[0]} & {id(e.state) for e in frontiers[2]}
    assert shared_states      # a successor both frontiers keep is one object
