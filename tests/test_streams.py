"""The DES's random streams: batched exponential gaps are the values numpy gives one call per
gap, in the same order, and a stream drawn in batches serves nothing else."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.des import streams
from simulations.des.streams import Exponentials, Streams

means = st.floats(min_value=1e-3, max_value=1e4, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), key=st.integers(0, 10_000),
       gaps=st.lists(means, min_size=1, max_size=300))
def test_batched_gaps_are_numpys_one_call_per_gap(seed, key, gaps):
    """Whatever the means (they may change from gap to gap) and however many gaps (across
    batches of growing size), each gap is bit for bit `exponential(mean)` of the same stream."""
    one_by_one = Streams(np.random.SeedSequence(seed)).rng("drop", key)
    batched = Streams(np.random.SeedSequence(seed)).exponentials("drop", key)
    assert [batched.gap(mean) for mean in gaps] == [one_by_one.exponential(mean)
                                                    for mean in gaps]


def test_batches_grow_from_the_first_to_the_largest():
    gaps = Exponentials(np.random.Generator(np.random.PCG64(1)))
    sizes = []
    for _ in range(400):
        if gaps.taken == len(gaps.batch):
            sizes.append(gaps.size)
        gaps.gap(1.0)
    assert sizes[0] == streams.FIRST_BATCH and max(sizes) == streams.LARGEST_BATCH
    assert sizes == sorted(sizes)


def test_a_stream_drawn_in_batches_refuses_other_draws_until_forgotten():
    s = Streams(np.random.SeedSequence(3))
    s.exponentials("work", 7).gap(2.0)
    with pytest.raises(ValueError, match="'work' 7 draws its gaps through Exponentials"):
        s.rng("work", 7)
    assert s.rng("lb").integers(10) >= 0       # another stream is free
    s.forget("work", 7)
    fresh = s.exponentials("work", 7)
    assert fresh.gap(1.0) == np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        3, spawn_key=(streams.STREAM_KINDS.index("work"), 7)))).exponential(1.0)
