"""`model.pairs`: sorted (key, value) tuples behave as a mapping from int keys, in whichever
build is loaded (compiled, the binary search compares keys as unboxed ints); an update, and
`model.state.replace_at` (its twin for tuples indexed by position), copies only the tuple; the
identity scans see what two versions share."""
from hypothesis import given
from hypothesis import strategies as st

from model.client_side import _holes
from model.pairs import keys_below, shared_prefix, shared_suffix, tdel, tget, tset
from model.state import replace_at

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
        assert keys_below(pairs, key) == sum(1 for k in mapping if k < key)


@given(edits)
def test_an_update_shares_every_pair_it_keeps(program):
    """`_changed_keys` (model.transitions) skips the pairs two versions share object for
    object; an update must therefore keep, not copy, every pair it does not change."""
    pairs = ()
    for delete, key, value in program:
        updated = tdel(pairs, key) if delete else tset(pairs, key, value)
        kept = {id(pair) for pair in pairs if pair[0] != key}
        assert kept <= {id(pair) for pair in updated}
        pairs = updated


@given(st.lists(st.integers(), min_size=1, max_size=30), st.data())
def test_replace_at_changes_one_element_and_keeps_the_others(items, data):
    index = data.draw(st.integers(0, len(items) - 1))
    before = tuple(items)
    after = replace_at(before, index, "new")
    assert after == before[:index] + ("new",) + before[index + 1:]
    assert before == tuple(items)             # the original is untouched


@given(edits, keys, st.integers())
def test_the_identity_scans_stop_exactly_where_an_update_changed_the_pairs(program, key, value):
    """What `_changed_keys` skips: two versions one update apart share every pair before and
    after the one the update changed, object for object. (Compiled, a pair read through the
    `Pairs` type is unpacked and packed again, a new object: a scan through that type would
    see no pair shared.)"""
    pairs = ()
    for delete, k, v in program:
        pairs = tdel(pairs, k) if delete else tset(pairs, k, v)
    at = sum(1 for k, _ in pairs if k < key)       # where `key` is or would go
    changed = 1 if at < len(pairs) and pairs[at][0] == key else 0   # the pair an update replaces
    for updated in (tset(pairs, key, value), tdel(pairs, key)):        # or deletes, if any
        if updated is pairs:
            assert shared_prefix(pairs, updated) == len(pairs)
            continue
        prefix = shared_prefix(pairs, updated)
        assert prefix == at
        assert shared_suffix(pairs, updated, prefix) == len(pairs) - at - changed
    assert shared_prefix(pairs, pairs) == len(pairs)
    assert shared_suffix(pairs, pairs, 0) == len(pairs)
    assert shared_suffix(pairs, pairs, len(pairs)) == 0    # never below the floor


@given(st.sets(st.integers(0, 30)), st.frozensets(st.integers(0, 30)), st.integers(0, 31))
def test_holes_are_the_messages_below_neither_applied_nor_missed(applied, missed, msg):
    """`client_side._holes` finds none by one search where every message below is applied;
    either way it gives what the set difference gives."""
    pairs = tuple((m, (1, 0)) for m in sorted(applied))
    assert _holes(pairs, missed, msg) == tuple(m for m in range(msg)
                                        if m not in applied and m not in missed)
