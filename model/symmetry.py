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

The hash of a renamed state is computed without building it (`Parts`): each client, each
instance and the rest of the state is hashed once with the names it refers to taken out, and a
renaming only re-combines those hashes with the renamed references. A successor shares every
client and instance its action did not touch with its parent (the model's states are immutable
records), and each record keeps its hash once computed (`anon_hash`), so only the records an
action built are hashed again. `rename` builds a renamed state in full: the definition the
fast path must agree with (tests compare the two partitions of reachable states).
"""
from __future__ import annotations

from itertools import permutations
from typing import Any, Final, List, Optional, Sequence, Tuple, cast

from .config import SystemConfig
from .record import UNHASHED, Record
from .servers import Instance, SessionRecord
from .state import Client, State

#: load balancers under which every renaming of instances is a symmetry
SYMMETRIC_LBS = ("random", "least_connections")
#: load balancers under which every rotation of instances is a symmetry, their pointer rotated
ROTATING_LBS = ("round_robin",)

#: True: fingerprints from the component hashes under one canonical renaming (the fast path);
#: False: from every renamed state built in full (`fingerprint_by_renaming`, the definition;
#: tests compare the two). A module attribute read on every call, so switching it works for
#: the compiled model and the compiled explorer too.
FINGERPRINTS_FROM_PARTS = True


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


def _client_part(c: Client) -> Tuple[int, int, int]:
    """(hash of the client without the names it holds, its ident, its stream's instance or -1)."""
    stream = c.stream
    return c.anon_hash(), c.ident, -1 if stream is None else stream.instance


def _instance_part(inst: Instance) -> Tuple[int, Tuple[int, ...]]:
    """(hash of the instance without its sessions' clients, those clients in token order)."""
    return inst.anon_hash(), inst.session_clients()


#: per client (its hash without names, its ident, its stream's instance or -1); per instance
#: (its hash without its sessions' clients, those clients in token order)
ClientParts = Tuple[Tuple[int, int, int], ...]
InstanceParts = Tuple[Tuple[int, Tuple[int, ...]], ...]
#: the naming fields' hash without names, and the names (clients, clients, instances)
Naming = Tuple[int, Tuple[int, ...], Tuple[int, ...], Tuple[int, ...]]


def _naming_part(registry, owners, affinity) -> Naming:
    """The naming fields' hash without names, and the names: registry clients, owners,
    affinity instances (each in token order)."""
    return (hash((tuple([(t, r.anon_hash()) for t, r in registry]),
                  tuple([t for t, _ in owners]), tuple([t for t, _ in affinity]))),
            tuple([r.client for _, r in registry]), tuple([o for _, o in owners]),
            tuple([i for _, i in affinity]))


class Parts(Record):
    """A state's hashes with every client and instance reference taken out, and the references:
    enough to hash the state under any renaming without building it."""

    __slots__ = ("clients", "instances", "plain", "naming", "pointer")
    _fields = ("clients", "instances", "plain", "naming", "pointer")
    clients: Final[ClientParts]
    instances: Final[InstanceParts]
    plain: Final[int]  # the fields no renaming touches
    naming: Final[Naming]  # _naming_part of registry, owners, affinity
    pointer: Final[int]  # the round-robin pointer (an instance, renamed where it means one)

    def __init__(self, clients: ClientParts, instances: InstanceParts, plain: int,
                 naming: Naming, pointer: int) -> None:
        self.clients = clients
        self.instances = instances
        self.plain = plain
        self.naming = naming
        self.pointer = pointer
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.clients, self.instances, self.plain, self.naming, self.pointer)


def parts_of(state: State, parent: Optional[State] = None,
             known: Optional[Parts] = None) -> Parts:
    """The Parts of `state`. Each client's and instance's hash is kept in the record itself
    (computed once per record), so a successor pays only for the records its action built;
    with `known` (the parent's Parts), every part whose record is the very same as in
    `parent` is taken from it."""
    registry, owners, affinity = state.registry, state.owners, state.affinity
    clients, instances = state.clients, state.instances
    if known is None or parent is None:
        return Parts(tuple([_client_part(c) for c in clients]),
                     tuple([_instance_part(i) for i in instances]),
                     state.plain_hash(), _naming_part(registry, owners, affinity), state.rr)
    before_clients, before_instances = parent.clients, parent.instances
    # the parent's parts are read as objects: compiled, a part read through its tuple type is
    # unpacked and packed again, a new tuple for every part a successor keeps
    kept_clients: Tuple[object, ...] = known.clients
    kept_instances: Tuple[object, ...] = known.instances
    if clients is before_clients:
        client_parts = known.clients
    elif len(clients) == len(before_clients):
        client_parts = cast(ClientParts, tuple([
            kept_clients[k] if c is before_clients[k] else _client_part(c)
            for k, c in enumerate(clients)]))
    else:
        client_parts = tuple([_client_part(c) for c in clients])
    if instances is before_instances:
        instance_parts = known.instances
    else:
        instance_parts = cast(InstanceParts, tuple([
            kept_instances[k] if i is before_instances[k] else _instance_part(i)
            for k, i in enumerate(instances)]))
    if registry is parent.registry and owners is parent.owners and affinity is parent.affinity:
        naming = known.naming
    else:
        naming = _naming_part(registry, owners, affinity)
    if state.buffers is parent.buffers and state.records is parent.records and \
            state.counter == parent.counter and state.serial == parent.serial and \
            state.next_token == parent.next_token and state.next_ident == parent.next_ident:
        plain = known.plain     # every field plain_hash reads is as in the parent
    else:
        plain = state.plain_hash()
    return Parts(client_parts, instance_parts, plain, naming, state.rr)


def _renamed(refs: Tuple[int, ...], names: Tuple[int, ...]) -> Tuple[int, ...]:
    """Each reference in `refs` by its new name."""
    return tuple([names[r] for r in refs])


def renamed_hash(parts: Parts, cmap: Tuple[int, ...], imap: Tuple[int, ...],
                 extra: tuple, pointer: bool) -> int:
    """The hash of the state `parts` describes, renamed by (cmap, imap) (its round-robin
    pointer too where `pointer`), with `extra`; with identity maps, the hash of the parts
    themselves."""
    client_parts, instance_parts = parts.clients, parts.instances
    clients: List[Any] = [None] * len(client_parts)
    for k in range(len(client_parts)):
        h, ident, inst = client_parts[k]
        clients[cmap[k]] = (h, cmap[ident], imap[inst] if inst >= 0 else -1)
    instances: List[Any] = [None] * len(instance_parts)
    for k in range(len(instance_parts)):
        ih, refs = instance_parts[k]
        instances[imap[k]] = (ih, _renamed(refs, cmap))
    naming = parts.naming
    return hash((tuple(clients), tuple(instances), parts.plain,
                 (naming[0], _renamed(naming[1], cmap), _renamed(naming[2], cmap),
                  _renamed(naming[3], imap)),
                 imap[parts.pointer] if pointer else parts.pointer, extra))


def identity_hash(parts: Parts, extra: tuple) -> int:
    """renamed_hash under the identity renaming, without renaming anything."""
    return hash((parts.clients, parts.instances, parts.plain, parts.naming, parts.pointer,
                 extra))


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
        #: every symmetry of the configuration, the identity first
        self.renamings: List[Tuple[Tuple[int, ...], Tuple[int, ...]]] = [self.identity] + \
            [(c, i) for c in client_perms for i in instance_perms if (c, i) != self.identity]

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
        parts = parts_of(state, parent, known)
        if not FINGERPRINTS_FROM_PARTS:
            return self.fingerprint_by_renaming(state, extra), parts
        if len(self.renamings) == 1:
            return identity_hash(parts, extra), parts
        canonical = self.canonical_renaming(parts)
        if canonical is None:
            pointer = self.pointer_named
            return min(renamed_hash(parts, cmap, imap, extra, pointer)
                       for cmap, imap in self.renamings), parts
        if canonical == self.identity:   # the same value, without renaming anything
            return identity_hash(parts, extra), parts
        return renamed_hash(parts, canonical[0], canonical[1], extra, self.pointer_named), parts

    def rename(self, state: State, cmap: Sequence[int], imap: Sequence[int]) -> State:
        """`rename` as a symmetry of this configuration (the pointer renamed where it names an
        instance)."""
        return rename(state, cmap, imap, self.pointer_named)

    def fingerprint_by_renaming(self, state: State, extra: tuple = ()) -> int:
        """A fingerprint with the same partition of states, computed by building every renamed
        state (slow: the definition the fast path is tested against)."""
        return min(hash((self.rename(state, cmap, imap), extra))
                   for cmap, imap in self.renamings)
