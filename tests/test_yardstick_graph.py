"""The same-graph yardstick: a plain BFS of the scope's own graph, built by patching tuples."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.state import Stream
from simulations import yardstick_graph
from simulations.explore.scope import Scope
from simulations.explore.search import explore
from simulations.yardstick_graph import (
    ScopeGraph,
    change,
    patch,
    plain_values,
    same_graph_bfs,
    scope_graph,
)

#: nested tuples of small ints, a few levels deep
nested = st.recursive(st.integers(-3, 3), lambda inner: st.tuples(inner, inner)
                      | st.tuples(inner, inner, inner), max_leaves=12)


@st.composite
def edited(draw):
    """A nested tuple and another of the same length, some of its parts changed."""
    old = draw(st.tuples(nested, nested, nested))

    def vary(value):
        if draw(st.booleans()):
            return value                               # left alone
        if isinstance(value, tuple) and draw(st.booleans()):
            return tuple(vary(v) for v in value)       # changed inside
        return draw(nested)                            # replaced (maybe by another shape)
    return old, tuple(vary(v) for v in old)


def _shared_where_equal(old, new, built):
    """Every part of `built` that `patch` had no reason to rebuild is `old`'s own object."""
    for a, b, c in zip(old, new, built):
        if a == b:
            assert c is a
        elif isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
            _shared_where_equal(a, b, c)


@given(edited())
def test_patching_a_change_builds_the_new_tuple_sharing_every_part_it_left_alone(pair):
    old, new = pair
    built = patch(old, change(old, new)) if old != new else old
    assert built == new
    _shared_where_equal(old, new, built)


def test_plain_values_keeps_distinct_values_apart():
    codes = {}
    # None, False, 0 and a string are different values of a field: different tuples
    values = [plain_values(v, codes) for v in (None, 0, False, "0", 1, True, "init")]
    assert values[1] == values[2] == 0 and values[4] == values[5] == 1   # a bool is an int
    assert len({values[0], values[1], values[3], values[4], values[6]}) == 5
    assert plain_values(frozenset({3, 1, 2}), codes) == (1, 2, 3)
    stream = Stream(1, 2, "get", None, 1, False)
    laid_out = plain_values(stream, codes)
    assert len(laid_out) == len(Stream._fields) and laid_out[:2] == (1, 2)
    assert plain_values(stream, codes) == laid_out     # the same codes the second time


@pytest.fixture(scope="module")
def graph():
    return ScopeGraph.build(Scope(), "strict")


def test_the_graph_is_the_explorers_without_subsumption(graph):
    result = explore(Scope(), "strict", subsumption=False)
    assert graph.shape["states"] == result.states == 24_170
    assert graph.shape["transitions"] == result.transitions == 59_862
    found = same_graph_bfs(graph)
    assert found["states"] == found["expanded"] == result.states
    assert found["transitions"] == result.transitions and found["depth"] == result.depth
    assert found["states_per_s"] == found["states"] / found["cpu_seconds"]


def test_every_transition_patched_gives_its_successors_tuples():
    nodes, successors = scope_graph(Scope(), "strict")
    codes = {}
    tuples = [(plain_values(s, codes), plain_values(b, codes)) for s, b in nodes]
    assert len(set(tuples)) == len(tuples)                  # every state its own tuples
    for i, row in enumerate(successors):
        for j in row:
            assert patch(tuples[i], change(tuples[i], tuples[j])) == tuples[j]


def test_a_transition_rebuilds_more_than_one_scalars_path(graph):
    shape = graph.shape
    # the model's transitions set several scalars and take some parts whole (a pair added)
    assert shape["scalars_per_transition"] > 2 and shape["whole_per_transition"] > 1
    assert shape["rebuilt_per_transition"] > 5


def test_states_laid_out_alike_are_refused(monkeypatch):
    monkeypatch.setattr(yardstick_graph, "plain_values", lambda value, codes: 0)
    with pytest.raises(ValueError, match="the same tuples"):
        ScopeGraph.build(Scope(), "strict")
