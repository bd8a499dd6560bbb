"""The explorer's compact per-state, per-class and per-edge storage (`IntColumn`, `Int32Column`,
`ByteColumn`): whatever mix of appends, writes and reads, a column is the list of values put in,
its numpy view agrees, and a value its width cannot hold is refused without a change."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.explore import COMPILED
from simulations.explore.columns import ByteColumn, Int32Column, IntColumn
from simulations.explore.liveness import CAUSE_LIMIT, LivenessGraph

LOW, HIGH = -2**63, 2**63 - 1
#: each kind of column, the least and greatest value it holds, and its numpy type
KINDS = [(IntColumn, LOW, HIGH, np.int64), (Int32Column, -2**31, 2**31 - 1, np.int32),
         (ByteColumn, 0, 255, np.uint8)]
KIND_IDS = [kind[0].__name__ for kind in KINDS]


@st.composite
def programs(draw, low=LOW, high=HIGH):
    """A sequence of operations with values in [low, high]."""
    values = st.integers(low, high)
    return draw(st.lists(st.one_of(
        st.tuples(st.just("append"), values),
        st.tuples(st.just("set"), st.integers(0, 40), values),
        st.tuples(st.just("get"), st.integers(0, 40)),
        st.tuples(st.just("values"))), max_size=60))


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
@given(data=st.data())
def test_a_column_is_the_list_of_its_values(kind, data):
    make, low, high, dtype = kind
    ops = data.draw(programs(low, high))
    column, model = make(), []
    for op in ops:
        if op[0] == "append":
            column.append(op[1])
            model.append(op[1])
        elif op[0] == "set" and op[1] < len(model):
            column[op[1]] = op[2]
            model[op[1]] = op[2]
        elif op[0] == "get" and op[1] < len(model):
            assert column[op[1]] == model[op[1]]
        elif op[0] == "values":
            assert column.values().tolist() == model
        assert len(column) == len(model)
    assert [column[k] for k in range(len(model))] == model
    assert list(column) == model
    assert column.values().dtype == dtype


@pytest.mark.parametrize("make", [kind[0] for kind in KINDS], ids=KIND_IDS)
def test_a_view_sees_writes_and_keeps_its_length(make):
    """`values()` is a view of the buffer as it was: a write by index shows in it, an append
    (which may move the buffer) does not change it."""
    column = make()
    for value in (1, 2, 3):
        column.append(value)
    view = column.values()
    column[0] = 7
    column.append(4)
    assert view.tolist()[1:] == [2, 3] and len(view) == 3
    assert column.values().tolist() == [7, 2, 3, 4]


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_a_column_refuses_what_its_width_cannot_hold_and_negative_indices(kind):
    make, low, high, dtype = kind
    column = make()
    column.append(high)
    column.append(low)
    for bad in (high + 1, low - 1, HIGH + 1):
        with pytest.raises(OverflowError, match="does not fit"):
            column.append(bad)
        with pytest.raises(OverflowError, match="does not fit"):
            column[0] = bad
    assert list(column) == [high, low]            # nothing half-written
    with pytest.raises(IndexError, match="negative"):
        column[-1]
    with pytest.raises(IndexError):
        column[2]
    empty = make().values()
    assert empty.tolist() == [] and empty.dtype == dtype


def test_the_liveness_graph_names_at_most_255_waiting_causes():
    """A class's waiting cause is one byte (0: none): the graph refuses a 256th cause before
    adding its class, and reads every cause back as it was given."""
    graph = LivenessGraph()
    graph.add_class(None)
    for k in range(CAUSE_LIMIT):
        graph.add_class(f"cause {k}")
    with pytest.raises(OverflowError, match="waiting causes"):
        graph.add_class("one too many")
    assert len(graph.cause) == CAUSE_LIMIT + 1 == len(graph.done)
    assert not graph.waiting(0) and graph.waiting(CAUSE_LIMIT)
    assert graph.causes[graph.cause[CAUSE_LIMIT] - 1] == f"cause {CAUSE_LIMIT - 1}"


def test_the_column_is_compiled_with_the_explorer():
    """The explorer's compiled build holds the column (else every append goes through the
    interpreter): the module loads from the same place as the search."""
    from simulations.explore import columns, frontier
    assert COMPILED == columns.__file__.endswith(".so") == frontier.__file__.endswith(".so")
