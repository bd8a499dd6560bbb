"""`Canonicalizer.placed`: a fingerprint with the renaming it was taken under, which together
name one state, not only its class. Searches of one scope share a layer's outcomes by that key,
so two different states with one key would hand one state's successors to the other."""
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental import SYSTEMS, first_states, walk

from model import initial_state
from model.parts import identity_hash
from model.switches import SWITCHES
from model.symmetry import Canonicalizer, parts_of


@settings(max_examples=80, deadline=None)
@given(system=st.sampled_from(SYSTEMS), choices=st.lists(st.integers(0, 50), max_size=14),
       extra=st.sampled_from([(), (1, 0, 2)]))
def test_the_fingerprint_is_the_hash_of_the_state_under_the_renaming_named(system, choices,
                                                                            extra):
    """Renamed by the renaming `placed` names, the state hashes (as the identity does) to its
    fingerprint, from its parts and by the definition (every renamed state built)."""
    canon = Canonicalizer(system)
    for state in [initial_state(system)] + [state for _, state in walk(system, choices)]:
        fp, renaming, parts = canon.placed(state, extra)
        assert (fp, parts) == canon.fingerprint(state, extra)
        assert 0 <= renaming < len(canon.renamings)
        renamed = canon.rename(state, *canon.renamings[renaming])
        assert identity_hash(parts_of(renamed), extra) == fp
        SWITCHES.fingerprints_from_parts = False
        try:
            slow, slow_renaming, _ = canon.placed(state, extra)
        finally:
            SWITCHES.fingerprints_from_parts = True
        assert slow == canon.fingerprint_by_renaming(state, extra)
        assert hash((canon.rename(state, *canon.renamings[slow_renaming]), extra)) == slow


def test_no_two_states_share_a_fingerprint_and_renaming():
    """Breadth-first over the first states of each system, every state as it is (not up to
    symmetry): (fingerprint, renaming) tells them all apart, while fingerprints alone do not
    (states one renaming apart share one), and renamings other than the identity occur."""
    for system in SYSTEMS:
        canon = Canonicalizer(system)
        by_key, by_fp, renamings = {}, {}, set()
        for state in first_states(system, 1500):
            fp, renaming, _ = canon.placed(state, (0, 1))
            assert by_key.setdefault((fp, renaming), state) == state
            by_fp.setdefault(fp, set()).add(state)
            renamings.add(renaming)
        if len(canon.renamings) > 1:
            assert len(renamings) > 1, system
            assert any(len(states) > 1 for states in by_fp.values()), system
