"""A Reconnect's step depends on the gate only through the consequence of its decision.

The explorations of one scope under several gates share a Reconnect's outcome between gates
whose decisions have the same consequence (`Decision.consequence`: everything but the reason).
That is sound only if (1) applying a decision the gate gave is the step asking the gate gives,
and (2) two decisions with the same consequence give the same state and the same property hits
whichever gate gave them. Both are checked here on random walks of random deployments, at every
Reconnect, for every named gate and a user's gate; and the sharing is checked to happen.
"""
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import configs

from model import (
    NAMED_GATES,
    Reconnect,
    apply,
    decision_of,
    enabled_actions,
    initial_state,
    resolve_gate,
)
from model.properties import hits_of
from simulations.example_gates import gap_as_404

GATES = [resolve_gate(name) for name in NAMED_GATES] + [resolve_gate(gap_as_404)]


def _hits(events) -> list:
    return [(prop.name, hit) for event in events for prop, hit in hits_of(event)]


def _walk(config, choices):
    """The states of a walk from the initial state, each step an enabled action picked by the
    next choice, taken under `naive` (it admits the most resumptions, so walks go deep)."""
    state, walk_gate = initial_state(config), resolve_gate("naive")
    yield state
    for choice in choices:
        actions = enabled_actions(state, config)
        if not actions:
            return
        state = apply(state, actions[choice % len(actions)], config, walk_gate,
                      check=False).state
        yield state


def _check_reconnects(state, config) -> int:
    """Check both facts at every Reconnect enabled in `state`, under every gate; returns how
    many Reconnects two gates decided with the same consequence for different reasons."""
    alike = 0
    for action in enabled_actions(state, config):
        if type(action) is not Reconnect:
            continue
        by_consequence, reasons = {}, {}
        for gate in GATES:
            decision = decision_of(state, action, config, gate)
            asked = apply(state, action, config, gate, check=False)
            assert apply(state, action, config, gate, check=False, decided=decision) == asked
            step = (asked.state, _hits(asked.events))
            assert by_consequence.setdefault(decision.consequence(), step) == step
            reasons.setdefault(decision.consequence(), set()).add(decision.reason)
        alike += any(len(r) > 1 for r in reasons.values())
    return alike


@settings(max_examples=100)
@given(config=configs(), choices=st.lists(st.integers(0, 10_000), max_size=40))
def test_a_reconnect_step_is_a_function_of_its_decisions_consequence(config, choices):
    for state in _walk(config, choices):
        _check_reconnects(state, config)


def test_every_reconnect_of_the_default_scope_and_gates_that_decide_alike():
    """The same on the first 3,000 states of the default deployment, breadth first; and not
    vacuous: some Reconnect there is decided with the same consequence for different reasons
    (what keying on the consequence adds to keying on the whole decision)."""
    from simulations.explore.scope import Scope
    config = Scope().system
    frontier, seen, alike = deque([initial_state(config)]), set(), 0
    while frontier and len(seen) < 3000:
        state = frontier.popleft()
        alike += _check_reconnects(state, config)
        for action in enabled_actions(state, config):
            successor = apply(state, action, config, "naive", check=False).state
            if successor not in seen:
                seen.add(successor)
                frontier.append(successor)
    assert alike > 0


def test_explorations_together_share_reconnect_outcomes():
    """The searches of one scope take Reconnect outcomes from each other, and still find what
    each finds alone (tests/test_optimisations_off.py compares everything they report)."""
    from simulations.explore.frontier import Search
    from simulations.explore.scope import Scope
    from simulations.explore.search import Exploration
    from simulations.explore.shared import SharedTransitions
    scope = Scope()
    shared, depth = SharedTransitions(), 0
    searches = [Search(scope, resolve_gate(name), True, False,
                       Exploration(scope, name, True), 3000, budgets=shared.budgets)
                for name in ("range", "generation", "strict")]
    while any(search.active for search in searches):
        for search in searches:
            if search.active:
                search.expand_layer(depth, shared)
        depth += 1
    assert shared.reconnects_shared > 0
    assert shared.hits > shared.reconnects_shared


def test_searches_that_share_transitions_must_share_budgets():
    """An outcome names its unfair budgets by their id in one `Budgets`: a search built with
    other budgets than the SharedTransitions' would read another search's ids as its own, so
    it refuses to share rather than find wrongly."""
    from simulations.explore.frontier import Search
    from simulations.explore.scope import Scope
    from simulations.explore.search import Exploration
    from simulations.explore.shared import SharedTransitions
    scope = Scope()
    search = Search(scope, resolve_gate("strict"), True, False,
                    Exploration(scope, "strict", True), 100)
    with pytest.raises(ValueError, match="budgets"):
        search.expand_layer(0, SharedTransitions())
