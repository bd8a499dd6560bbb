"""`IntColumn`, the explorer's compact per-state and per-edge storage: whatever mix of appends,
writes and reads, and wherever the tail happens to be packed, it is the list of values put in."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.explore import COMPILED
from simulations.explore.columns import IntColumn

RANGES = {"b": (-128, 127), "i": (-2**31, 2**31 - 1), "q": (-2**63, 2**63 - 1),
          "l": (-2**63, 2**63 - 1)}


@st.composite
def programs(draw):
    """A type code, a chunk size and a sequence of operations with values in its range."""
    typecode = draw(st.sampled_from(sorted(RANGES)))
    low, high = RANGES[typecode]
    values = st.integers(low, high)
    ops = draw(st.lists(st.one_of(
        st.tuples(st.just("append"), values),
        st.tuples(st.just("set"), st.integers(0, 40), values),
        st.tuples(st.just("get"), st.integers(0, 40)),
        st.tuples(st.just("values"))), max_size=60))
    return typecode, draw(st.integers(1, 6)), ops


@given(programs())
def test_a_column_is_the_list_of_its_values(program):
    typecode, chunk, ops = program
    column, model = IntColumn(typecode, chunk), []
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
        assert column.packed_len + len(column.tail) == len(model)
        assert len(column.tail) < chunk          # never more than a chunk held as Python ints
    assert [column[k] for k in range(len(model))] == model
    assert list(column) == model
    assert column.values().dtype == np.dtype(typecode)


def test_a_column_refuses_what_its_type_cannot_hold_and_negative_indices():
    column = IntColumn("b", chunk=2)
    column.append(127)
    with pytest.raises(OverflowError):
        column.append(128)                        # packed now: out of int8's range
    column = IntColumn("q", chunk=2)
    column.append(5)
    with pytest.raises(IndexError, match="negative"):
        column[-1]
    with pytest.raises(IndexError):
        column[1]
    with pytest.raises(ValueError, match="chunk"):
        IntColumn("q", chunk=0)


def test_the_column_is_compiled_with_the_explorer():
    """The explorer's compiled build holds the column (else every append goes through the
    interpreter): the module loads from the same place as the search."""
    from simulations.explore import columns, frontier
    assert COMPILED == columns.__file__.endswith(".so") == frontier.__file__.endswith(".so")
