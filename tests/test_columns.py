"""`IntColumn`, the explorer's compact per-state, per-class and per-edge storage: whatever mix
of appends, writes and reads, it is the list of values put in, and its numpy view agrees."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.explore import COMPILED
from simulations.explore.columns import IntColumn

LOW, HIGH = -2**63, 2**63 - 1


@st.composite
def programs(draw):
    """A sequence of operations with values in the signed 64-bit range."""
    values = st.integers(LOW, HIGH)
    return draw(st.lists(st.one_of(
        st.tuples(st.just("append"), values),
        st.tuples(st.just("set"), st.integers(0, 40), values),
        st.tuples(st.just("get"), st.integers(0, 40)),
        st.tuples(st.just("values"))), max_size=60))


@given(programs())
def test_a_column_is_the_list_of_its_values(ops):
    column, model = IntColumn(), []
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
    assert column.values().dtype == np.int64


def test_a_view_sees_writes_and_keeps_its_length():
    """`values()` is a view of the buffer as it was: a write by index shows in it, an append
    (which may move the buffer) does not change it."""
    column = IntColumn()
    for value in (1, 2, 3):
        column.append(value)
    view = column.values()
    column[0] = 7
    column.append(4)
    assert view.tolist()[1:] == [2, 3] and len(view) == 3
    assert column.values().tolist() == [7, 2, 3, 4]


def test_a_column_refuses_what_64_bits_cannot_hold_and_negative_indices():
    column = IntColumn()
    column.append(HIGH)
    column.append(LOW)
    for bad in (HIGH + 1, LOW - 1):
        with pytest.raises(OverflowError):
            column.append(bad)
        with pytest.raises(OverflowError):
            column[0] = bad
    assert list(column) == [HIGH, LOW]            # nothing half-written
    with pytest.raises(IndexError, match="negative"):
        column[-1]
    with pytest.raises(IndexError):
        column[2]
    assert IntColumn().values().tolist() == []


def test_the_column_is_compiled_with_the_explorer():
    """The explorer's compiled build holds the column (else every append goes through the
    interpreter): the module loads from the same place as the search."""
    from simulations.explore import columns, frontier
    assert COMPILED == columns.__file__.endswith(".so") == frontier.__file__.endswith(".so")
