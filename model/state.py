"""The system state as one immutable, canonical value.

Every part is a record (`model.record`: immutable, compared and hashed by value) of tuples, ints,
strings, frozensets and other records: equal states are equal values and hash equal, copying is
sharing, and updates build new records (`replace`). Mappings are stored as tuples of
(key, value) pairs sorted by key (`model.pairs`), so two states that mean the same thing are the
same value. The clients and the whole state are here; the server side's records are in
`model.servers`, what an event leaves behind in `model.entries`.
"""
from __future__ import annotations

from typing import Any, Final, FrozenSet, Optional, Tuple

from .config import SystemConfig
from .entries import Buffer, Cursor, Item
from .pairs import Pairs, tget, tset
from .protocol import WireId
from .record import KEEP, UNHASHED, Record
from .servers import Instance, LiveSession, SessionRecord
from .vocabulary import Phase, StreamKind


class Stream(Record):
    """An open SSE stream of a client, as admitted."""

    __slots__ = ("instance", "token", "kind", "client_gen", "serving_gen", "cursor_foreign",
                 "frames", "admission", "stalled", "ends_when_drained", "_anon")
    _fields = ("instance", "token", "kind", "client_gen", "serving_gen", "cursor_foreign",
               "frames", "admission", "stalled", "ends_when_drained")
    instance: Final[int]
    token: Final[int]
    kind: Final[StreamKind]
    client_gen: Final[Optional[int]]   # generation of the last event the client got on this
    #                                    session
    serving_gen: Final[Optional[int]]  # generation the instance serves the session at
    cursor_foreign: Final[bool]  # ground truth: the presented cursor came from another session
    #                              and names no event of S's own stream (an id that is
    #                              byte-identical to one S issued is, to any server, S's own)
    frames: Final[int]           # data frames delivered on this stream
    admission: Final[str]        # how it was opened: "init", "no_cursor" (a GET without
    #                              Last-Event-ID) or the admitting decision's effect
    stalled: Final[bool]         # it has been found dead (nothing can ever arrive on it while
    #                              the client is owed messages); deadness is stable while open
    ends_when_drained: Final[bool]  # the server closes it once its replay is delivered (it
    #                              carries no live events: another connection holds the stream)
    _anon: int

    def __init__(self, instance: int, token: int, kind: StreamKind, client_gen: Optional[int],
                 serving_gen: Optional[int], cursor_foreign: bool, frames: int = 0,
                 admission: str = "init", stalled: bool = False,
                 ends_when_drained: bool = False) -> None:
        self.instance = instance
        self.token = token
        self.kind = kind
        self.client_gen = client_gen
        self.serving_gen = serving_gen
        self.cursor_foreign = cursor_foreign
        self.frames = frames
        self.admission = admission
        self.stalled = stalled
        self.ends_when_drained = ends_when_drained
        self._hash = self._anon = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token, self.kind, self.client_gen, self.serving_gen,
                self.cursor_foreign, self.frames, self.admission, self.stalled,
                self.ends_when_drained)

    def replace(self, instance: Any = KEEP, frames: Any = KEEP, stalled: Any = KEEP) -> Stream:
        """A copy with its instance, frame count or stall flag changed (the fields that change
        while a stream is open; renaming changes the instance)."""
        return Stream(self.instance if instance is KEEP else instance, self.token, self.kind,
                      self.client_gen, self.serving_gen, self.cursor_foreign,
                      self.frames if frames is KEEP else frames, self.admission,
                      self.stalled if stalled is KEEP else stalled, self.ends_when_drained)

    def anon_hash(self) -> int:
        """The hash without the instance it names (symmetry reduction)."""
        h = self._anon
        if h == UNHASHED:
            h = self._anon = hash((self.token, self.kind, self.client_gen, self.serving_gen,
                                   self.cursor_foreign, self.frames, self.admission,
                                   self.stalled, self.ends_when_drained))
        return h


class Client(Record):
    __slots__ = ("phase", "token", "cursor", "persisted", "stream", "inflight", "applied",
                 "missed", "seen", "inits", "executed", "ident", "_anon")
    _fields = ("phase", "token", "cursor", "persisted", "stream", "inflight", "applied",
               "missed", "seen", "inits", "executed", "ident")
    phase: Final[Phase]
    token: Final[Optional[int]]
    cursor: Final[Optional[Cursor]]
    persisted: Final[Optional[Tuple[Optional[int], Optional[Cursor]]]]
    stream: Final[Optional[Stream]]
    inflight: Final[Tuple[Item, ...]]
    applied: Final[Pairs]                    # own message -> (token, generation) first applied
    missed: Final[FrozenSet[int]]    # own messages known lost: told by a gap, or reported as a
    #                                  silent loss (each counted once)
    seen: Final[FrozenSet[WireId]]   # durable log of ids applied on the current session (kept
    #                                  only with client_dedupe)
    inits: Final[int]
    executed: Final[Pairs]           # ground truth: own call result -> (token, generation) of
    #                                  the servers' first execution
    ident: Final[int]                # unique over the run (slots of departed clients are
    #                                  reused); ground truth names clients by it
    _anon: int

    def __init__(self, phase: Phase, token: Optional[int] = None,
                 cursor: Optional[Cursor] = None,
                 persisted: Optional[Tuple[Optional[int], Optional[Cursor]]] = None,
                 stream: Optional[Stream] = None, inflight: Tuple[Item, ...] = (),
                 applied: Pairs = (), missed: FrozenSet[int] = frozenset(),
                 seen: FrozenSet[WireId] = frozenset(), inits: int = 0, executed: Pairs = (),
                 ident: int = 0) -> None:
        self.phase = phase
        self.token = token
        self.cursor = cursor
        self.persisted = persisted
        self.stream = stream
        self.inflight = inflight
        self.applied = applied
        self.missed = missed
        self.seen = seen
        self.inits = inits
        self.executed = executed
        self.ident = ident
        self._hash = self._anon = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.phase, self.token, self.cursor, self.persisted, self.stream, self.inflight,
                self.applied, self.missed, self.seen, self.inits, self.executed, self.ident)

    def replace(self, phase: Any = KEEP, token: Any = KEEP, cursor: Any = KEEP,
                persisted: Any = KEEP, stream: Any = KEEP, inflight: Any = KEEP,
                applied: Any = KEEP, missed: Any = KEEP, seen: Any = KEEP, inits: Any = KEEP,
                executed: Any = KEEP, ident: Any = KEEP) -> Client:
        return Client(self.phase if phase is KEEP else phase,
                      self.token if token is KEEP else token,
                      self.cursor if cursor is KEEP else cursor,
                      self.persisted if persisted is KEEP else persisted,
                      self.stream if stream is KEEP else stream,
                      self.inflight if inflight is KEEP else inflight,
                      self.applied if applied is KEEP else applied,
                      self.missed if missed is KEEP else missed,
                      self.seen if seen is KEEP else seen,
                      self.inits if inits is KEEP else inits,
                      self.executed if executed is KEEP else executed,
                      self.ident if ident is KEEP else ident)

    def anon_hash(self) -> int:
        """The hash without the names it holds: its identity and its stream's instance
        (symmetry reduction)."""
        h = self._anon
        if h == UNHASHED:
            stream = self.stream
            h = self._anon = hash((self.phase, self.token, self.cursor, self.persisted,
                                   None if stream is None else stream.anon_hash(),
                                   self.inflight, self.applied, self.missed, self.seen,
                                   self.inits, self.executed))
        return h


class State(Record):
    __slots__ = ("clients", "instances", "registry", "buffers", "counter", "serial",
                 "next_token", "rr", "affinity", "next_ident", "owners", "records")
    _fields = ("clients", "instances", "registry", "buffers", "counter", "serial",
               "next_token", "rr", "affinity", "next_ident", "owners", "records")
    clients: Final[Tuple[Client, ...]]
    instances: Final[Tuple[Instance, ...]]
    registry: Final[Pairs]       # token -> SessionRecord (store = "shared")
    buffers: Final[Pairs]        # token -> Buffer (buffer = "shared")
    counter: Final[int]          # shared event counter (event_ids = "global", shared buffers)
    serial: Final[int]           # ground-truth emission serial
    next_token: Final[int]
    rr: Final[int]               # round-robin pointer of the load balancer
    affinity: Final[Pairs]       # token -> instance, learned by a sticky LB
    next_ident: Final[int]       # identity of the next client to arrive
    owners: Final[Pairs]         # token -> ident of the client that initialized it (ground
    #                              truth)
    records: Final[Pairs]        # idempotency key (model.stateless.record_key) -> request id
    #                              that executed the call: shared execution records

    def __init__(self, clients: Tuple[Client, ...], instances: Tuple[Instance, ...],
                 registry: Pairs = (), buffers: Pairs = (), counter: int = 0, serial: int = 0,
                 next_token: int = 1, rr: int = 0, affinity: Pairs = (), next_ident: int = 0,
                 owners: Pairs = (), records: Pairs = ()) -> None:
        self.clients = clients
        self.instances = instances
        self.registry = registry
        self.buffers = buffers
        self.counter = counter
        self.serial = serial
        self.next_token = next_token
        self.rr = rr
        self.affinity = affinity
        self.next_ident = next_ident
        self.owners = owners
        self.records = records
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.clients, self.instances, self.registry, self.buffers, self.counter,
                self.serial, self.next_token, self.rr, self.affinity, self.next_ident,
                self.owners, self.records)

    def replace(self, clients: Any = KEEP, instances: Any = KEEP, registry: Any = KEEP,
                buffers: Any = KEEP, counter: Any = KEEP, serial: Any = KEEP,
                next_token: Any = KEEP, rr: Any = KEEP, affinity: Any = KEEP,
                next_ident: Any = KEEP, owners: Any = KEEP, records: Any = KEEP) -> State:
        return State(self.clients if clients is KEEP else clients,
                     self.instances if instances is KEEP else instances,
                     self.registry if registry is KEEP else registry,
                     self.buffers if buffers is KEEP else buffers,
                     self.counter if counter is KEEP else counter,
                     self.serial if serial is KEEP else serial,
                     self.next_token if next_token is KEEP else next_token,
                     self.rr if rr is KEEP else rr,
                     self.affinity if affinity is KEEP else affinity,
                     self.next_ident if next_ident is KEEP else next_ident,
                     self.owners if owners is KEEP else owners,
                     self.records if records is KEEP else records)

    def plain_hash(self) -> int:
        """The hash of the fields that name no client or instance (symmetry reduction), and of
        the shared execution records, which do name clients: a configuration that keeps them is
        explored without symmetry reduction (`model.symmetry`). The round-robin pointer names
        an instance and is left out (`model.symmetry` renames it where it means one).
        `symmetry.parts_of` reuses a parent's where these six fields are the same: keep both
        lists alike."""
        return hash((self.buffers, self.counter, self.serial, self.next_token,
                     self.next_ident, self.records))


def initial_state(config: SystemConfig) -> State:
    """All instances up at incarnation 1, every client not yet initialized."""
    return State(
        clients=tuple(Client("new", ident=i) for i in range(config.clients)),
        instances=tuple(Instance("up", 1) for _ in range(config.instances)),
        next_ident=config.clients,
    )


def owner_of(state: State, token: int) -> Optional[int]:
    """The client (ident) whose session `token` is; None once forgotten."""
    return tget(state.owners, token)


def slot_of(state: State, ident: int) -> Optional[int]:
    """The slot of the present client with identity `ident` (None once it left)."""
    for c, client in enumerate(state.clients):
        if client.ident == ident and client.phase != "gone":
            return c
    return None


def replace_at(items: Tuple[Any, ...], index: int, value: Any) -> Tuple[Any, ...]:
    """A copy of a tuple with one element replaced (through one list: fewer copies of the
    other elements than slicing and joining)."""
    copy = list(items)
    copy[index] = value
    return tuple(copy)


def _registered(config: SystemConfig) -> bool:
    """Sessions live in a shared registry, whose record names each one's current generation."""
    return config.store == "shared" and config.transport == "sessions"


def _runs(state: State, inst: Instance, token: int,
          registered: bool) -> Optional[LiveSession]:
    """`inst`'s live session of `token` if `inst` runs it at its current generation (up or
    draining; with a shared registry, at the generation of the registry's record), else None."""
    if inst.status == "down":
        return None
    live: Optional[LiveSession] = tget(inst.sessions, token)
    if live is None or not registered:
        return live
    record: Optional[SessionRecord] = tget(state.registry, token)
    return live if record is not None and live.generation == record.generation else None


def holding(state: State, config: SystemConfig,
            token: int) -> Tuple[int, Optional[LiveSession]]:
    """(index, live session) of the instance that runs session `token` at its current
    generation (up or draining), or (-1, None); on a stateless transport, of the instance
    running request `token`. Invariant: at most one instance holds a session at its registry
    generation, and a request runs on one instance."""
    registered = _registered(config)
    for index, inst in enumerate(state.instances):
        live = _runs(state, inst, token, registered)
        if live is not None:
            return index, live
    return -1, None


def held_by(state: State, config: SystemConfig, index: int,
            token: int) -> Optional[LiveSession]:
    """The live session of `token` if instance `index` is the one `holding` names, else None.
    With a shared registry, at most one instance holds a session at its registry generation
    (the invariant `holding` keeps), so only instance `index` is looked at."""
    if not _registered(config):
        h, live = holding(state, config, token)
        return live if h == index else None
    return _runs(state, state.instances[index], token, True)


def holder(state: State, config: SystemConfig, token: int) -> Optional[int]:
    """The index of the instance `holding` session (or request) `token`, if any."""
    index, live = holding(state, config, token)
    return index if live is not None else None


#: The buffer key every session shares when streams are keyed by JSON-RPC request id (tokens
#: start at 1, so it names no session).
SHARED_STREAM = 0
#: Stream.token of a stream attached to no session's stream (Effect.DETACHED): no emit ever
#: reaches it
DETACHED_STREAM = -1


def set_orphan(state: State, instance: int, token: int, orphan: str) -> State:
    """`instance`'s live session `token` with its orphan stream set to `orphan` ("" none,
    "call" or "resumed"; it must hold the session)."""
    inst = state.instances[instance]
    live: Optional[LiveSession] = tget(inst.sessions, token)
    assert live is not None
    inst = inst.replace(sessions=tset(inst.sessions, token, live.replace(orphan=orphan)))
    return state.replace(instances=replace_at(state.instances, instance, inst))


def buffer_key(config: SystemConfig, token: int) -> int:
    """The key of `token`'s replay buffer: the session itself, or SHARED_STREAM when streams are
    keyed by request id ("request_id": every SDK client numbers its requests alike, so the
    sessions' calls land in the same stream of the event store)."""
    return SHARED_STREAM if config.buffer_keying == "request_id" else token


def buffer_of(state: State, config: SystemConfig, instance: int, token: int) -> Optional[Buffer]:
    """The replay buffer of `token` as `instance` sees it (None: it has none)."""
    key = buffer_key(config, token)
    if config.buffer == "shared":
        return tget(state.buffers, key)
    return tget(state.instances[instance].buffers, key)


def visible_buffers(state: State, config: SystemConfig, instance: int) -> Pairs:
    """Every buffer `instance` can read (for lookups by event id across sessions)."""
    return state.buffers if config.buffer == "shared" else state.instances[instance].buffers
