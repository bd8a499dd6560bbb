"""The DES's stream seeds are numpy's: `StreamSeeds` gives the words `SeedSequence` would, and
a PCG64 seeded through `SeedWords` draws what the SeedSequence-seeded PCG64 draws."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.des import seeding, streams
from simulations.des.seeding import SeedWords, StreamSeeds, pcg64, uint32_words
from simulations.des.streams import STREAM_KINDS, Streams

# entropy and keys of one word and of several (numpy splits a large int into 32-bit words)
ints = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**160))


@settings(max_examples=300, deadline=None)
@given(entropy=ints, parent=st.lists(ints, max_size=3), kind=ints,
       entities=st.lists(ints, min_size=1, max_size=4))
def test_stream_seeds_are_the_words_numpys_seed_sequence_gives(entropy, parent, kind,
                                                               entities):
    seeds = StreamSeeds(entropy, tuple(parent))
    for entity in entities:          # several entities of one kind share its mixed pool
        expected = np.random.SeedSequence(entropy, spawn_key=tuple(parent) + (kind, entity))
        assert seeds.state(kind, entity) == \
            [int(w) for w in expected.generate_state(seeding.PCG64_WORDS, np.uint64)]


@settings(max_examples=60, deadline=None)
@given(entropy=ints, replication=st.integers(0, 10_000), key=st.integers(0, 10_000))
def test_a_stream_draws_what_the_seed_sequence_seeded_generator_draws(entropy, replication,
                                                                       key):
    seed = np.random.SeedSequence(entropy).spawn(replication + 1)[replication]
    for kind in STREAM_KINDS:
        numpys = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            entropy, spawn_key=seed.spawn_key + (STREAM_KINDS.index(kind), key))))
        ours = Streams(seed).rng(kind, key)
        assert ours.bit_generator.state == numpys.bit_generator.state
        assert ours.standard_exponential(5).tolist() == numpys.standard_exponential(5).tolist()


def test_a_seed_sequence_of_non_int_entropy_takes_numpys_path():
    """Entropy given as a list of ints (a SeedSequence may hold one) is not split here."""
    seed = np.random.SeedSequence([3, 2**40, 7])
    made = Streams(seed)
    assert made._seeds is None
    numpys = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        [3, 2**40, 7], spawn_key=(STREAM_KINDS.index("drop"), 9))))
    assert made.rng("drop", 9).random() == numpys.random()


def test_uint32_words_split_as_numpy_splits():
    assert uint32_words(0) == [0]
    assert uint32_words(2**32) == [0, 1]
    assert uint32_words(2**64 + 5) == [5, 0, 1]
    with pytest.raises(ValueError, match="non-negative, not -1"):
        uint32_words(-1)


def test_seed_words_serve_a_pcg64_and_nothing_else():
    words = StreamSeeds(1, ()).state(0, 0)
    assert pcg64(words).bit_generator.state == np.random.PCG64(
        np.random.SeedSequence(1, spawn_key=(0, 0))).state
    with pytest.raises(ValueError, match="holds 4 uint64 words for a PCG64, not 8 of"):
        SeedWords(words).generate_state(8)
    with pytest.raises(TypeError, match="does not implement spawning"):
        pcg64(words).bit_generator.spawn(1)


def test_the_switch_chooses_between_worked_out_seeds_and_numpys(monkeypatch):
    """tests/test_optimisations_off.py switches `SEEDS_WORKED_OUT` off to compare DES records:
    the switch must reach the (possibly compiled) streams."""
    seed = np.random.SeedSequence(5).spawn(1)[0]
    assert isinstance(Streams(seed).rng("lb").bit_generator.seed_seq, SeedWords)
    monkeypatch.setattr(streams, "SEEDS_WORKED_OUT", False)
    off = Streams(seed).rng("lb")
    assert isinstance(off.bit_generator.seed_seq, np.random.SeedSequence)
    worked_out = pcg64(StreamSeeds(5, seed.spawn_key).state(STREAM_KINDS.index("lb"), 0))
    assert off.bit_generator.state == worked_out.bit_generator.state
