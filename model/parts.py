"""A state's parts: what its fingerprint under any renaming of clients and instances is
computed from, without building the renamed state (`model.symmetry` chooses the renaming).

Each client, each instance and the rest of the state is hashed once with the names it refers
to taken out (`anon_hash`, kept in the record), beside the names themselves; a renaming only
re-combines those hashes with the renamed names. A successor shares every client and instance
its action did not touch with its parent, so `parts_of` takes those parts from the parent's.
Invariant: `renamed_hash` and (for two clients) `renamed_hash_two` are the same value, the hash
of one nested tuple, and under the identity renaming `identity_hash` is that value too. Compiled,
`renamed_hash_two` computes that hash lane by lane (`model.tuple_hash`) without building the
renamed tuple: the same value.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, List, Optional, Tuple, cast

from . import tuple_hash as th
from .record import UNHASHED, Record
from .servers import Instance
from .state import Client, State

if TYPE_CHECKING:
    from mypy_extensions import i64


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


class Naming(Record):
    """The naming fields' hash without names (`anon`), and the names: registry clients,
    owners (clients), affinity instances (each in token order). A record: its hash, that of
    the tuple of the four, is kept, and so is its hash renamed under each two-client renaming
    asked (`_naming_lane`), which a successor sharing it does not compute again."""

    __slots__ = ("anon", "clients", "owners", "instances", "_lanes", "_known")
    _fields = ("anon", "clients", "owners", "instances")
    anon: Final[int]
    clients: Final[Tuple[int, ...]]
    owners: Final[Tuple[int, ...]]
    instances: Final[Tuple[int, ...]]
    _lanes: List[int]   # by 2 * cmap[0] + imap[0]: the renamed hash, where `_known` has the bit
    _known: int

    def __init__(self, anon: int, clients: Tuple[int, ...], owners: Tuple[int, ...],
                 instances: Tuple[int, ...]) -> None:
        self.anon = anon
        self.clients = clients
        self.owners = owners
        self.instances = instances
        self._lanes = [0, 0, 0, 0]
        self._known = 0
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.anon, self.clients, self.owners, self.instances)


def _naming_part(registry, owners, affinity) -> Naming:
    """The naming fields' hash without names, and the names: registry clients, owners,
    affinity instances (each in token order)."""
    return Naming(hash((tuple([(t, r.anon_hash()) for t, r in registry]),
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
    n = len(refs)       # the short ones built at once, not through a list
    if n == 0:
        return refs
    if n == 1:
        return (names[refs[0]],)
    if n == 2:
        return (names[refs[0]], names[refs[1]])
    if n == 3:
        return (names[refs[0]], names[refs[1]], names[refs[2]])
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
                 (naming.anon, _renamed(naming.clients, cmap), _renamed(naming.owners, cmap),
                  _renamed(naming.instances, imap)),
                 imap[parts.pointer] if pointer else parts.pointer, extra))


def renamed_hash_two(parts: Parts, cmap: Tuple[int, ...], imap: Tuple[int, ...],
                     extra: tuple, pointer: bool) -> int:
    """renamed_hash for two clients, placing them in order at once instead of through a list
    (and two instances the same way)."""
    if th.NATIVE:
        return _mixed_two(parts, cmap, imap, extra, pointer)
    first, second = parts.clients
    h0, ident0, inst0 = first
    h1, ident1, inst1 = second
    c0 = (h0, cmap[ident0], imap[inst0] if inst0 >= 0 else -1)
    c1 = (h1, cmap[ident1], imap[inst1] if inst1 >= 0 else -1)
    instance_parts = parts.instances
    if len(instance_parts) == 2:
        inst_a, inst_b = instance_parts
        ih0, refs0 = inst_a
        ih1, refs1 = inst_b
        i0 = (ih0, _renamed(refs0, cmap))
        i1 = (ih1, _renamed(refs1, cmap))
        instances: Tuple[object, ...] = (i1, i0) if imap[0] else (i0, i1)
    else:
        placed: List[Any] = [None] * len(instance_parts)
        for k in range(len(instance_parts)):
            ih, refs = instance_parts[k]
            placed[imap[k]] = (ih, _renamed(refs, cmap))
        instances = tuple(placed)
    naming = parts.naming
    return hash(((c1, c0) if cmap[0] else (c0, c1), instances, parts.plain,
                 (naming.anon, _renamed(naming.clients, cmap), _renamed(naming.owners, cmap),
                  _renamed(naming.instances, imap)),
                 imap[parts.pointer] if pointer else parts.pointer, extra))


def identity_hash(parts: Parts, extra: tuple) -> int:
    """renamed_hash under the identity renaming, without renaming anything (the parts' own
    tuples hashed: faster than lane by lane, nothing to build)."""
    return hash((parts.clients, parts.instances, parts.plain, parts.naming, parts.pointer,
                 extra))


# -- the same hashes lane by lane (model.tuple_hash): a tuple item's lane is its hash, an int's
# th.int_lane; nothing is built


def _instance_lane(part: Tuple[int, Tuple[int, ...]], cmap: Tuple[int, ...]) -> i64:
    """hash((ih, _renamed(refs, cmap))) of one instance part."""
    ih, refs = part
    return th.finish(th.mix(th.mix(th.START, th.int_lane(ih)), th.renamed_ints(refs, cmap)), 2)


def _naming_lane(naming: Naming, cmap: Tuple[int, ...], imap: Tuple[int, ...]) -> i64:
    """The hash of the naming part renamed (two clients): kept in `naming` where there are at
    most two instances (the renaming is then known by where it sends client 0 and instance 0)."""
    slot = -1
    if len(imap) <= 2:
        slot = 2 * cmap[0] + imap[0]
        if naming._known >> slot & 1:
            return naming._lanes[slot]
    acc = th.mix(th.START, th.int_lane(naming.anon))
    acc = th.mix(acc, th.renamed_ints(naming.clients, cmap))
    acc = th.mix(acc, th.renamed_ints(naming.owners, cmap))
    lane = th.finish(th.mix(acc, th.renamed_ints(naming.instances, imap)), 4)
    if slot >= 0:
        naming._lanes[slot] = lane
        naming._known |= 1 << slot
    return lane


def _outer(clients: i64, instances: i64, parts: Parts, naming: i64, pointer: int,
           extra: tuple) -> int:
    """The hash of (clients, instances, plain, naming, pointer, extra) from the lanes."""
    acc = th.mix(th.mix(th.START, clients), instances)
    acc = th.mix(th.mix(acc, th.int_lane(parts.plain)), naming)
    acc = th.mix(th.mix(acc, th.int_lane(pointer)), hash(extra))
    return th.finish(acc, 6)


def _mixed_two(parts: Parts, cmap: Tuple[int, ...], imap: Tuple[int, ...], extra: tuple,
               pointer: bool) -> int:
    """renamed_hash_two, lane by lane."""
    first, second = parts.clients
    h0, ident0, inst0 = first
    h1, ident1, inst1 = second
    c0 = th.triple(h0, cmap[ident0], imap[inst0] if inst0 >= 0 else -1)
    c1 = th.triple(h1, cmap[ident1], imap[inst1] if inst1 >= 0 else -1)
    if cmap[0]:
        clients = th.finish(th.mix(th.mix(th.START, c1), c0), 2)
    else:
        clients = th.finish(th.mix(th.mix(th.START, c0), c1), 2)
    instance_parts = parts.instances
    n = len(instance_parts)
    if n == 1:          # (one instance: nothing to place, no list built)
        instances = th.finish(th.mix(th.START, _instance_lane(instance_parts[0], cmap)), 1)
    elif n == 2:
        i0 = _instance_lane(instance_parts[0], cmap)
        i1 = _instance_lane(instance_parts[1], cmap)
        if imap[0]:
            instances = th.finish(th.mix(th.mix(th.START, i1), i0), 2)
        else:
            instances = th.finish(th.mix(th.mix(th.START, i0), i1), 2)
    else:
        placed: List[int] = [0] * n
        for k in range(n):
            placed[imap[k]] = _instance_lane(instance_parts[k], cmap)
        acc = th.START
        for lane in placed:
            acc = th.mix(acc, lane)
        instances = th.finish(acc, n)
    return _outer(clients, instances, parts, _naming_lane(parts.naming, cmap, imap),
                  imap[parts.pointer] if pointer else parts.pointer, extra)
