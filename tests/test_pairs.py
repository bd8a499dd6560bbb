"""`model.pairs`: sorted (key, value) tuples behave as a mapping from int keys, in whichever
build is loaded (compiled, the binary search compares keys as unboxed ints)."""
from hypothesis import given
from hypothesis import strategies as st

from model.pairs import tdel, tget, tset

#: small keys collide often; huge ones leave a machine word (a compiled int must still compare)
keys = st.one_of(st.integers(-3, 12), st.integers(-2**70, 2**70))
edits = st.lists(st.tuples(st.booleans(), keys, st.integers()), max_size=40)


@given(edits, st.lists(keys, max_size=10))
def test_pairs_are_the_dict_they_were_built_like(program, probes):
    pairs, mapping = (), {}
    for delete, key, value in program:
        if delete:
            pairs, _ = tdel(pairs, key), mapping.pop(key, None)
        else:
            pairs, mapping[key] = tset(pairs, key, value), value
        assert pairs == tuple(sorted(mapping.items()))
    for key in probes + [k for _, k, _ in program]:
        assert tget(pairs, key, "absent") == mapping.get(key, "absent")
