"""Canonical fingerprints with symmetry reduction over interchangeable clients and instances.

A fingerprint is the smallest hash of the state under every renaming of clients (slots,
idents, session owners) and, where the load balancer treats instances alike
(`random`, `least_connections`), every renaming of instances; a `round_robin` balancer treats
them alike up to rotation (instance j called j+r mod n, its pointer moved with them: the
balancer's scan from the pointer is the same scan renamed), so there instances are renamed by
every rotation. Two states that differ only by such a renaming get the same fingerprint, so the
explorer visits one of them. Like TLC, a
fingerprint is a 64-bit hash: distinct states colliding is possible in principle and
vanishingly unlikely at these scopes.

The hash of a renamed state is computed without building it, from the state's `Parts`
(`model.parts`): each client, each instance and the rest of the state hashed once with the
names it refers to taken out, and the names. `rename` builds a renamed state in full: the
definition the fast path must agree with (tests compare the two partitions of reachable
states). With two clients (every cell of the verification matrix), the canonical renaming is
found by comparing the two clients' (and two instances') signatures rather than ranking them:
the same renaming, the same value (tests compare it with `from_canonical`).
"""
from __future__ import annotations

from itertools import permutations
from typing import Final, List, Optional, Sequence, Tuple

from .config import SystemConfig
from .parts import Parts, identity_hash, parts_of, renamed_hash, renamed_hash_two
from .servers import Instance, SessionRecord
from .state import Client, State
from .switches import SWITCHES

__all__ = ["Canonicalizer", "Parts", "parts_of", "rename"]

#: load balancers under which every renaming of instances is a symmetry
SYMMETRIC_LBS = ("random", "least_connections")
#: load balancers under which every rotation of instances is a symmetry, their pointer rotated
ROTATING_LBS = ("round_robin",)

#: `fingerprints_from_parts`: fingerprints from the component hashes under one canonical
#: renaming (the fast path), else from every renamed state built in full
#: (`fingerprint_by_renaming`, the definition; tests compare the two): `model.switches`
_SWITCHES: Final = SWITCHES


def _client(c: Client, cmap: Sequence[int], imap: Sequence[int]) -> Client:
    stream = c.stream
    if stream is not None:
        stream = stream.replace(instance=imap[stream.instance])
    return c.replace(stream=stream, ident=cmap[c.ident])


def _instance(inst: Instance, cmap: Sequence[int]) -> Instance:
    sessions = tuple((t, s.replace(client=cmap[s.client])) for t, s in inst.sessions)
    return inst.replace(sessions=sessions)


def rename(state: State, cmap: Sequence[int], imap: Sequence[int],
           pointer: bool = False) -> State:
    """The state with client i called cmap[i] and instance j called imap[j] everywhere (the
    round-robin pointer too where `pointer`: where it names an instance)."""
    clients: List = [None] * len(state.clients)
    for c, client in enumerate(state.clients):
        clients[cmap[c]] = _client(client, cmap, imap)
    instances: List = [None] * len(state.instances)
    for i, inst in enumerate(state.instances):
        instances[imap[i]] = _instance(inst, cmap)
    registry: Tuple[Tuple[int, SessionRecord], ...] = tuple(
        (t, r.replace(client=cmap[r.client])) for t, r in state.registry)
    return state.replace(
        clients=tuple(clients), instances=tuple(instances), registry=registry,
        owners=tuple((t, cmap[c]) for t, c in state.owners),
        affinity=tuple((t, imap[i]) for t, i in state.affinity),
        rr=imap[state.rr] if pointer else state.rr)


def _ranks(keys: List) -> Optional[Tuple[int, ...]]:
    """rank of each key in sorted order, or None when two keys are equal (a tie)."""
    if len(keys) == 2:
        first, second = keys
        return None if first == second else ((0, 1) if first < second else (1, 0))
    order = sorted(range(len(keys)), key=keys.__getitem__)
    ranks = [0] * len(keys)
    for r, k in enumerate(order):
        if r and keys[order[r - 1]] == keys[k]:
            return None
        ranks[k] = r
    return tuple(ranks)


def _compare(a: int, b: int) -> int:
    """-1, 0 or 1 as a is below, equal to or above b."""
    return -1 if a < b else (1 if b < a else 0)


def _compare_refs(hashes: Tuple[int, ...], refs0: Tuple[int, ...],
                  refs1: Tuple[int, ...]) -> int:
    """`_compare` for the tuples of the hashes of the clients `refs0` and `refs1` name, as
    tuples compare (item by item, then the shorter first)."""
    n0, n1 = len(refs0), len(refs1)
    for k in range(min(n0, n1)):
        order = _compare(hashes[refs0[k]], hashes[refs1[k]])
        if order:
            return order
    return _compare(n0, n1)


#: the two renamings of two things
KEEP_TWO: Final[Tuple[int, ...]] = (0, 1)
SWAP_TWO: Final[Tuple[int, ...]] = (1, 0)


def _rotation(imap: Tuple[int, ...]) -> bool:
    """Whether instance j called imap[j] is a rotation (imap[j] = j + r mod n)."""
    n, r = len(imap), imap[0]
    return all(imap[j] == (j + r) % n for j in range(n))


class Canonicalizer:
    """Fingerprints for one configuration: which renamings are symmetries of it.

    The fingerprint of a state is the hash of one canonical renaming of it: clients (and, where
    instances are interchangeable, instances) are put in the order of signatures no renaming
    changes (a component's hash without names, and the hashes of what it refers to). Every
    state of an orbit has the same signatures, so all of them get the same canonical renaming;
    when two signatures tie, the order is ambiguous and the fingerprint is instead the smallest
    hash over every renaming (also the same for the whole orbit). Where only rotations of
    instances are symmetries, an order that is no rotation is ambiguous in the same way (the
    sorting renaming of every state of an orbit is a rotation, or none is)."""

    def __init__(self, config: SystemConfig, symmetry: bool = True):
        n_c, n_i = config.clients, config.instances
        # execution records (stateless+idempotency) are keyed by client identity, which no
        # part hash takes out: such a configuration is explored without symmetry reduction
        symmetry = symmetry and not config.idempotency
        self.clients_alike = symmetry and n_c > 1
        self.instances_alike = symmetry and n_i > 1 and config.lb in SYMMETRIC_LBS + ROTATING_LBS
        #: the round-robin pointer names an instance: renamed with them, and only rotations
        self.pointer_named = self.instances_alike and config.lb in ROTATING_LBS
        client_perms = list(permutations(range(n_c))) if self.clients_alike \
            else [tuple(range(n_c))]
        if not self.instances_alike:
            instance_perms = [tuple(range(n_i))]
        elif self.pointer_named:
            instance_perms = [tuple([(i + r) % n_i for i in range(n_i)]) for r in range(n_i)]
        else:
            instance_perms = list(permutations(range(n_i)))
        self.identity = (tuple(range(n_c)), tuple(range(n_i)))
        #: two clients alike and instances not: the canonical renaming is the identity or the
        #: swap of the clients, found by comparing two signatures (`_two_clients`)
        self.two_clients = self.clients_alike and n_c == 2 and not self.instances_alike
        #: two clients and two instances, each pair alike (every renaming of two instances
        #: is a rotation): both canonical orders found by comparing (`_two_by_two`)
        self.two_by_two = self.clients_alike and n_c == 2 and self.instances_alike and \
            n_i == 2
        #: every symmetry of the configuration, the identity first
        self.renamings: List[Tuple[Tuple[int, ...], Tuple[int, ...]]] = [self.identity] + \
            [(c, i) for c in client_perms for i in instance_perms if (c, i) != self.identity]
        #: (cmap, imap) -> its index in `renamings`
        self.renaming_index = {renaming: k for k, renaming in enumerate(self.renamings)}
        #: with two clients: the index in `renamings` of (clients kept (0) or swapped (1),
        #: instances kept or swapped, where there are two); -1 where that is no symmetry here
        self.two_index = [[-1, -1], [-1, -1]]
        if n_c == 2:
            imaps = (KEEP_TWO, SWAP_TWO) if n_i == 2 else (self.identity[1],)
            for c, cmap in enumerate((KEEP_TWO, SWAP_TWO)):
                for i, imap in enumerate(imaps):
                    self.two_index[c][i] = self.renaming_index.get((cmap, imap), -1)

    def canonical_renaming(self, parts: Parts) -> Optional[Tuple[tuple, tuple]]:
        """(cmap, imap) putting clients and instances in signature order; None on a tie."""
        client_hash = [p[0] for p in parts.clients]
        if self.instances_alike:
            # an instance is known by its content, and so is the instance a client streams from
            instance_hash = [p[0] for p in parts.instances]
            if self.pointer_named:
                pointer = parts.pointer
                imap = _ranks([(h, tuple([client_hash[c] for c in refs]), k == pointer)
                               for k, (h, refs) in enumerate(parts.instances)])
                if imap is None or not _rotation(imap):
                    return None
            else:
                imap = _ranks([(h, tuple([client_hash[c] for c in refs]))
                               for h, refs in parts.instances])
                if imap is None:
                    return None
            signatures = [(h, instance_hash[inst] if inst >= 0 else -1)   # hash() is never -1
                          for h, _, inst in parts.clients]
        else:
            imap = self.identity[1]
            signatures = [(h, inst) for h, _, inst in parts.clients]
        cmap = _ranks(signatures) if self.clients_alike else self.identity[0]
        return None if cmap is None else (cmap, imap)

    def fingerprint(self, state: State, extra: tuple = (), parent: Optional[State] = None,
                    known: Optional[Parts] = None) -> Tuple[int, Parts]:
        """(the fingerprint of (state, extra), the state's Parts for its successors' use)."""
        fp, _, parts = self.placed(state, extra, parent, known)
        return fp, parts

    def placed(self, state: State, extra: tuple = (), parent: Optional[State] = None,
               known: Optional[Parts] = None) -> Tuple[int, int, Parts]:
        """`fingerprint`, with the index in `renamings` of the renaming whose hash it is.
        The fingerprint and that index name the state itself, not only its class: two
        states with one fingerprint and one index rename to the same state by the same
        renaming (up to a 64-bit collision, as fingerprints are)."""
        parts = parts_of(state, parent, known)
        if not _SWITCHES.fingerprints_from_parts:
            fp, renaming = self.placed_by_renaming(state, extra)
        else:
            fp, renaming = self.placed_parts(parts, extra)
        return fp, renaming, parts

    def fingerprint_of_parts(self, parts: Parts, extra: tuple = ()) -> int:
        """The fingerprint of the state `parts` describes, with `extra`."""
        return self.placed_parts(parts, extra)[0]

    def placed_parts(self, parts: Parts, extra: tuple = ()) -> Tuple[int, int]:
        """(the fingerprint of the state `parts` describes with `extra`, the index of the
        renaming it is the hash under)."""
        if len(self.renamings) == 1:
            return identity_hash(parts, extra), 0
        if self.two_clients:
            return self._two_clients(parts, extra)
        if self.two_by_two:
            return self._two_by_two(parts, extra)
        return self.from_canonical_placed(parts, extra)

    def _smallest(self, parts: Parts, extra: tuple) -> Tuple[int, int]:
        """The smallest hash over every renaming and the first renaming that gives it (the
        fingerprint where the canonical renaming is ambiguous)."""
        pointer = self.pointer_named
        best, where = 0, -1
        for k, (cmap, imap) in enumerate(self.renamings):
            h = renamed_hash(parts, cmap, imap, extra, pointer)
            if where < 0 or h < best:
                best, where = h, k
        return best, where

    def _two_clients(self, parts: Parts, extra: tuple) -> Tuple[int, int]:
        """`from_canonical` where two clients are alike and instances are not: the signatures
        are (hash, stream's instance) of each client, and the canonical renaming puts the
        smaller first (the identity), swaps them, or is ambiguous when they are equal. Found
        by comparing them, without building the signatures or the renaming."""
        first, second = parts.clients
        h0, _, i0 = first
        h1, _, i1 = second
        if h0 == h1 and i0 == i1:
            return self._smallest(parts, extra)
        if h0 < h1 or (h0 == h1 and i0 < i1):
            return identity_hash(parts, extra), 0
        return (renamed_hash_two(parts, SWAP_TWO, self.identity[1], extra, False),
                self.two_index[1][0])

    def _two_by_two(self, parts: Parts, extra: tuple) -> Tuple[int, int]:
        """`from_canonical` for two clients and two instances, each pair alike: the instances
        are ordered by (hash, hashes of their sessions' clients, whether the round-robin
        pointer names it, where it is renamed), then the clients by (hash, hash of their
        stream's instance); either comparison coming out equal is ambiguous."""
        first, second = parts.clients
        h0, _, c_inst0 = first
        h1, _, c_inst1 = second
        inst_a, inst_b = parts.instances
        ih0, refs0 = inst_a
        ih1, refs1 = inst_b
        hashes: Tuple[int, ...] = (h0, h1)
        order = _compare(ih0, ih1) or _compare_refs(hashes, refs0, refs1)
        if order == 0 and self.pointer_named:
            pointer = parts.pointer
            order = _compare(int(pointer == 0), int(pointer == 1))
        if order == 0:
            return self._smallest(parts, extra)
        instance_hashes: Tuple[int, ...] = (ih0, ih1)
        s0 = instance_hashes[c_inst0] if c_inst0 >= 0 else -1
        s1 = instance_hashes[c_inst1] if c_inst1 >= 0 else -1
        client_order = _compare(h0, h1) or _compare(s0, s1)
        if client_order == 0:
            return self._smallest(parts, extra)
        if order < 0 and client_order < 0:
            return identity_hash(parts, extra), 0
        c_swap, i_swap = int(client_order > 0), int(order > 0)
        return (renamed_hash_two(parts, SWAP_TWO if c_swap else KEEP_TWO,
                                 SWAP_TWO if i_swap else KEEP_TWO, extra, self.pointer_named),
                self.two_index[c_swap][i_swap])

    def from_canonical(self, parts: Parts, extra: tuple) -> int:
        """The fingerprint of the state `parts` describes, with `extra`: its hash under its
        canonical renaming, or the smallest hash over every renaming when that is ambiguous."""
        return self.from_canonical_placed(parts, extra)[0]

    def from_canonical_placed(self, parts: Parts, extra: tuple) -> Tuple[int, int]:
        """`from_canonical`, with the index of the renaming used."""
        canonical = self.canonical_renaming(parts)
        if canonical is None:
            return self._smallest(parts, extra)
        if canonical == self.identity:   # the same value, without renaming anything
            return identity_hash(parts, extra), 0
        return (renamed_hash(parts, canonical[0], canonical[1], extra, self.pointer_named),
                self.renaming_index[canonical])

    def rename(self, state: State, cmap: Sequence[int], imap: Sequence[int]) -> State:
        """`rename` as a symmetry of this configuration (the pointer renamed where it names an
        instance)."""
        return rename(state, cmap, imap, self.pointer_named)

    def fingerprint_by_renaming(self, state: State, extra: tuple = ()) -> int:
        """A fingerprint with the same partition of states, computed by building every renamed
        state (slow: the definition the fast path is tested against)."""
        return self.placed_by_renaming(state, extra)[0]

    def placed_by_renaming(self, state: State, extra: tuple = ()) -> Tuple[int, int]:
        """`fingerprint_by_renaming`, with the index of the first renaming giving it."""
        best, where = 0, -1
        for k, (cmap, imap) in enumerate(self.renamings):
            h = hash((self.rename(state, cmap, imap), extra))
            if where < 0 or h < best:
                best, where = h, k
        return best, where
