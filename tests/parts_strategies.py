"""Hypothesis strategies for a state's `Parts` (model.parts): any clients and instances, real
states or not, with equal hashes, sessions and streams in every combination."""
from hypothesis import strategies as st

from model.parts import Naming, Parts

#: few values, so that ties are common (big ones are boxed when compiled)
TIED_HASHES = st.sampled_from([-3, 5, 2**62 + 1, 2**63 - 7])
#: any 64-bit hash, the edges of an int's hash (its modulus 2**61 - 1, -1, the extremes) first
ANY_HASHES = st.one_of(st.sampled_from([0, -1, -2, 2**61 - 1, 2**61, -(2**61) + 1, -(2**61),
                                        2**63 - 1, -(2**63)]),
                       st.integers(-(2**63), 2**63 - 1))


@st.composite
def parts_of_clients(draw, instances, clients=2, hashes=TIED_HASHES):
    """Parts of a state with `clients` clients (idents in any order) and `instances`
    instances."""
    refs = st.lists(st.integers(0, clients - 1), max_size=3).map(tuple)
    client_parts = tuple((draw(hashes), ident, draw(st.integers(-1, instances - 1)))
                         for ident in draw(st.permutations(range(clients))))
    insts = tuple((draw(hashes), draw(refs)) for _ in range(instances))
    naming = Naming(draw(hashes), draw(refs), draw(refs),
                    tuple(draw(st.lists(st.integers(0, instances - 1), max_size=2))))
    return Parts(client_parts, insts, draw(hashes), naming,
                 draw(st.integers(0, instances - 1)))


def two_client_parts(instances):
    """Parts of any two-client state with `instances` instances, ties common."""
    return parts_of_clients(instances)
