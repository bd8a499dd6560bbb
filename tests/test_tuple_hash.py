"""The hash of a renamed state lane by lane (model.tuple_hash) is CPython's own hash of the
nested tuple: on ints at every edge, on nested tuples, and on the parts of states of two clients
and 1-3 instances under every renaming. Compiled, the wrapping branch is tested; the from-source
branch is tested in a child process."""
import os
import subprocess
import sys
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st
from parts_strategies import ANY_HASHES, TIED_HASHES, parts_of_clients

import model
from model import tuple_hash as th
from model.parts import _mixed_two, identity_hash, renamed_hash

INT64 = st.one_of(ANY_HASHES, st.integers(-(2**63), 2**63 - 1))
NESTED = st.recursive(INT64, lambda inner: st.lists(inner, max_size=4).map(tuple), max_leaves=12)


def folded(value) -> int:
    """hash(value) for nested tuples of ints, lane by lane."""
    if not isinstance(value, tuple):
        return th.int_lane(value)
    acc = th.START
    for item in value:
        acc = th.mix(acc, folded(item))
    return th.finish(acc, len(value))


@settings(max_examples=500, deadline=None)
@given(v=INT64)
def test_an_ints_lane_is_its_hash(v):
    assert th.int_lane(v) == hash(v)


@settings(max_examples=300, deadline=None)
@given(a=INT64, b=NESTED)
def test_a_pair_from_its_second_items_hash_is_the_pairs_hash(a, b):
    assert th.pair(a, hash(b)) == hash((a, b))


@settings(max_examples=300, deadline=None)
@given(value=NESTED)
def test_lanes_folded_are_the_hash_of_the_nested_tuple(value):
    assert folded(value) == hash(value)
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        assert th.ints(value) == hash(value)
        names = tuple(reversed(range(len(value))))
        assert th.renamed_ints(tuple(range(len(value))), names) == hash(names)
        if len(value) == 3:
            assert th.triple(*value) == hash(value)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), instances=st.sampled_from([1, 2, 3]),
       hashes=st.sampled_from([TIED_HASHES, ANY_HASHES]), pointer=st.booleans(),
       extra=st.sampled_from([(), (1, 0, 2), (2**63 - 1,)]))
def test_two_clients_renamed_lane_by_lane_is_the_tuple_hash(data, instances, hashes, pointer,
                                                            extra):
    parts = data.draw(parts_of_clients(instances, hashes=hashes))
    for cmap in permutations(range(2)):
        for imap in permutations(range(instances)):
            assert _mixed_two(parts, cmap, imap, extra, pointer) == \
                renamed_hash(parts, cmap, imap, extra, pointer)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), clients=st.sampled_from([1, 2, 3]), instances=st.sampled_from([1, 2, 3]),
       extra=st.sampled_from([(), (1, 0, 2)]))
def test_the_identity_hash_is_the_renamed_hash_of_the_identity(data, clients, instances, extra):
    parts = data.draw(parts_of_clients(instances, clients, ANY_HASHES))
    assert identity_hash(parts, extra) == renamed_hash(
        parts, tuple(range(clients)), tuple(range(instances)), extra, True)


def test_a_compiled_model_hashes_lane_by_lane():
    """Compiled, the arithmetic wraps and the probe holds, so fingerprints take the lanes; from
    source they hash the tuples (faster there), though the reduced steps give the same values."""
    assert th.NATIVE == th.WRAPS == model.COMPILED
    probe = ("import model.tuple_hash as t; "
             "assert not t.WRAPS and not t.NATIVE and t._probe(), 'from source'")
    env = {**os.environ, "MCP_MODEL_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
