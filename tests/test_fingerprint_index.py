"""`FingerprintIndex`, the explorer's map from class fingerprints to class indices: whatever mix
of puts and gets, with keys anywhere in 64 bits, colliding in their first slot or not, and
through every growth of its table, it answers as a dict does."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulations.explore import COMPILED
from simulations.explore.fingerprint_index import FingerprintIndex, _slot

LOW, HIGH = -2**63, 2**63 - 1
TOP_VALUE = 2**63 - 2


def keys():
    """Keys anywhere in 64 bits, structured keys (equal halves, only high bits set: a slot
    taken from the low bits or by folding the halves would send them all to one slot), and
    keys at the edges."""
    return st.one_of(
        st.integers(LOW, HIGH),
        st.integers(0, 2**20).map(lambda low: (low << 32) | low),
        st.integers(0, 64).map(lambda k: k << 40),
        st.sampled_from([LOW, HIGH, -1, 0, 1, -2, 2**32, -2**32]))


def _keys_at(slot, count, start=0):
    """`count` keys whose first slot in a new index (1,024 slots) is `slot`."""
    found, key = [], start
    while len(found) < count:
        if _slot(key, 64 - 10, 1023) == slot:
            found.append(key)
        key += 1
    return found


def test_colliding_keys_probe_on_and_wrap_past_the_tables_end():
    """Keys sharing a first slot take the next free ones, past the last slot to the first:
    each is found again, a key never put is not, and overwriting one changes only it."""
    index = FingerprintIndex()
    last = _keys_at(1023, 4)            # slots 1023, 0, 1, 2
    first = _keys_at(0, 2, last[-1] + 1)    # their first slot is taken: probed further
    for n, key in enumerate(last + first):
        index.put(key, n)
    assert [index.get(k) for k in last + first] == list(range(6))
    index.put(last[1], 99)
    assert [index.get(k) for k in last + first] == [0, 99, 2, 3, 4, 5] and len(index) == 6
    stranger = _keys_at(1023, 1, first[-1] + 1)[0]
    assert index.get(stranger) == -1 and index.get(stranger, 5) == 5


@given(st.lists(st.one_of(
    st.tuples(st.just("put"), keys(), st.integers(0, TOP_VALUE)),
    st.tuples(st.just("get"), keys())), max_size=300))
def test_an_index_answers_as_a_dict(ops):
    index, model = FingerprintIndex(), {}
    for op in ops:
        if op[0] == "put":
            index.put(op[1], op[2])
            model[op[1]] = op[2]
        else:
            assert index.get(op[1]) == model.get(op[1], -1)
            assert index.get(op[1], 7) == model.get(op[1], 7)
        assert len(index) == len(model)
    assert all(index.get(k) == v for k, v in model.items())


@given(keys(), st.integers(1, 40))
def test_a_first_slot_is_the_top_bits_of_the_product_modulo_2_64(key, bits):
    """Compiled the product wraps, from source it is exact: either way the slot is the same
    function of the key (Fibonacci hashing)."""
    mask = (1 << bits) - 1
    assert _slot(key, 64 - bits, mask) == (key * 0x9E3779B97F4A7C15 % 2**64) >> (64 - bits)


def test_an_index_grows_and_keeps_every_pair():
    """Far past its first table (1,024 slots, grown at two thirds full), every pair is
    found again, colliding keys too."""
    index = FingerprintIndex()
    pairs = {}
    for n in range(20_000):
        key = (n << 32) | n if n % 2 else -n * 0x9E3779B97F4A7C15 % 2**64 - 2**63
        index.put(key, n)
        pairs[key] = n
    assert len(index) == len(pairs) == 20_000
    assert index.mask + 1 == 32_768 and index.shift == 64 - 15   # 20,000 < 2/3 of 32,768
    assert all(index.get(k) == v for k, v in pairs.items())
    assert index.get(12345) == -1


def test_an_index_refuses_what_it_cannot_hold_and_changes_nothing():
    index = FingerprintIndex()
    index.put(HIGH, TOP_VALUE)
    index.put(LOW, 0)
    for key, value in ((HIGH + 1, 1), (LOW - 1, 1), (5, -1), (5, TOP_VALUE + 1)):
        with pytest.raises(OverflowError):
            index.put(key, value)
    assert len(index) == 2 and index.get(5) == -1
    assert index.get(HIGH) == TOP_VALUE and index.get(LOW) == 0
    # a key no 64-bit index can hold is not in it
    assert index.get(HIGH + 1) == -1 and index.get(LOW - 1, 3) == 3


def test_the_index_is_compiled_with_the_explorer():
    """The explorer's compiled build holds the index (else every lookup goes through the
    interpreter): the module loads from the same place as the search."""
    from simulations.explore import fingerprint_index, frontier
    assert COMPILED == fingerprint_index.__file__.endswith(".so") == \
        frontier.__file__.endswith(".so")
