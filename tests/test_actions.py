"""Actions as values (equal, hashed, pickled) and `successor`, the pair `apply` returns."""
import pickle

from hypothesis import given
from hypothesis import strategies as st
from strategies import configs

from model import Reconnect, apply, enabled_actions, initial_state
from model.actions import ACTIONS, Arrive, Compact, Expire, ForeignCursor, RoutedRequest
from model.policies import resolve_gate
from model.transitions import decision_of, question_of, successor

#: the kinds whose hash folds in their kind: every action but Arrive (which has no names)
NAMED_KINDS = [kind for kind in ACTIONS.values() if kind is not Arrive]


def _build(kind, a: int, b: int):
    """An action of `kind` on names a and b (an optional instance is None where a is -1)."""
    if issubclass(kind, (RoutedRequest, ForeignCursor)):
        return kind(a, b)
    if kind is Compact:
        return kind(None if a == -1 else a, b)
    if kind is Expire:
        return kind(None if a == -1 else a, b, a + b)
    return kind(a)


@given(st.sampled_from(NAMED_KINDS), st.sampled_from(NAMED_KINDS),
       st.integers(-3, 40), st.integers(-3, 1100), st.integers(-3, 40), st.integers(-3, 1100))
def test_equal_actions_hash_equal_and_pickle_back(kind_a, kind_b, a1, a2, b1, b2):
    x, y = _build(kind_a, a1, a2), _build(kind_b, b1, b2)
    assert _build(kind_a, a1, a2) == x and hash(_build(kind_a, a1, a2)) == hash(x)
    assert (x == y) == (kind_a is kind_b and x._key() == y._key()) == (not x != y)
    assert x != (x._key()) and x != None   # noqa: E711 (a record equals only its own class)
    assert pickle.loads(pickle.dumps(x)) == x
    assert hash(x) != -1     # hash() raised if a __hash__ gave -1


def test_actions_of_different_kinds_on_the_same_names_hash_apart():
    # a tuple of the names alone gave Deliver(0), Persist(0), Stop(0), Emit(0)... one hash:
    # every lookup in a dict of a search's actions then walked that chain
    actions = [_build(kind, a, b) for kind in NAMED_KINDS for a in range(4) for b in range(3)]
    distinct = set(actions)
    assert len({hash(x) for x in distinct}) == len(distinct)


@given(configs(), st.lists(st.integers(0, 10_000), max_size=25),
       st.sampled_from(["naive", "range", "generation", "provenance", "strict", "sdk"]))
def test_successor_is_the_step_apply_returns(config, choices, gate_name):
    gate = resolve_gate(gate_name)
    state = initial_state(config)
    for choice in choices:
        actions = enabled_actions(state, config)
        if not actions:
            break
        action = actions[choice % len(actions)]
        step = apply(state, action, config, gate_name)
        pair = successor(state, action, config, gate)
        assert type(pair) is tuple and pair == tuple(step)
        assert pair[0] == step.state and hash(pair[0]) == hash(step.state)
        if type(action) is Reconnect:   # the decision and the question, asked before
            question = question_of(state, action, config)
            decided = decision_of(state, action, config, gate)
            assert successor(state, action, config, gate, decided, question) == pair
        state = step.state
