"""The system state as one immutable, canonical value.

Everything is a NamedTuple of tuples, ints, strings and frozensets: equal states are equal values
and hash equal, copying is sharing, and updates build new tuples. Mappings are stored as tuples of
(key, value) pairs sorted by key (`tget` / `tset` / `tdel` keep them sorted), so two states that
mean the same thing are the same value.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Any, FrozenSet, Literal, NamedTuple, Optional, Tuple, get_args

from .config import SystemConfig
from .protocol import WireId

Pairs = Tuple[Tuple[Any, Any], ...]

# The model's closed vocabularies. Literal types, not Enum classes: mypy checks every value the
# model assigns or compares against them (the compile step runs it with --strict-equality), and
# a value stays a plain string, so states hash, compare and serialize as before and the compiled
# model pays nothing for the names.
#: a client's phase: before its first initialize; owed a (re-)initialize; holding a session
#: without a stream; with an open stream; given up (an SDK client raising); left (open systems)
Phase = Literal["new", "needs_init", "idle", "open", "failed", "gone"]
#: an instance's status: serving; draining before a rolling-restart stop; stopped or crashed
Status = Literal["up", "draining", "down"]
#: how a stream was opened: by an initialize request, or by a resumption (GET)
StreamKind = Literal["init", "resume"]
#: how an event reached a client: emitted live, replayed from its session's buffer, replayed
#: from the head of the buffer, replayed from a stream sessions share (`request_id` keying) or
#: from another session's stream
Via = Literal["live", "replay", "head", "shared", "foreign"]
PHASES: Tuple[str, ...] = get_args(Phase)
STATUSES: Tuple[str, ...] = get_args(Status)
STREAM_KINDS: Tuple[str, ...] = get_args(StreamKind)
VIAS: Tuple[str, ...] = get_args(Via)


def tget(pairs: Pairs, key: Any, default: Any = None) -> Any:
    """Value for `key` in a sorted pair tuple, or `default` (binary search)."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[i][1]
    return default


def tset(pairs: Pairs, key: Any, value: Any) -> Pairs:
    """A copy of `pairs` with `key` bound to `value`, still sorted by key."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[:i] + ((key, value),) + pairs[i + 1:]
    return pairs[:i] + ((key, value),) + pairs[i:]


def tdel(pairs: Pairs, key: Any) -> Pairs:
    """A copy of `pairs` without `key`."""
    i = bisect_left(pairs, (key,))
    if i < len(pairs) and pairs[i][0] == key:
        return pairs[:i] + pairs[i + 1:]
    return pairs


class Truth(NamedTuple):
    """Ground-truth identity of an emitted event; the wire does not carry it. Whose work the
    message is follows from its session (`owner_of(state, token)`)."""

    msg: int         # index of the message in its session owner's work
    token: int       # session it was emitted on
    generation: int  # generation of that session's state at emission
    serial: int      # unique over the run, in emission order


class Entry(NamedTuple):
    """One retained event in a replay buffer."""

    wire: WireId
    truth: Truth


class Buffer(NamedTuple):
    """A session's replay buffer. Invariant: `floor` is the most recently dropped entry, so a
    cursor equal to `floor.wire` replays every retained entry; None if nothing was dropped."""

    entries: Tuple[Entry, ...] = ()
    floor: Optional[Entry] = None


class SessionRecord(NamedTuple):
    """A session in the shared registry (store = "shared")."""

    client: int
    work_start: int
    generation: int


class LiveSession(NamedTuple):
    """A session's live state inside one process: its generation, the next message of its work to
    emit, and its per-session event counter. With store = "local" this is also the registry."""

    client: int
    work_start: int
    generation: int
    next_msg: int
    seq: int
    orphan: str = ""         # the process still writes this session's stream into a connection
    #                          whose client is gone (half-open): "call" (the call's own stream,
    #                          which ends with the call's result) or "resumed" (a resumed
    #                          stream, which ends only with its connection); "" none


class Instance(NamedTuple):
    status: Status
    incarnation: int             # bumped by every start
    sessions: Pairs = ()         # token -> LiveSession
    buffers: Pairs = ()          # token -> Buffer (buffer = "local")
    counter: int = 0             # process-wide event counter (event_ids = "global", local buffers)


class Stream(NamedTuple):
    """An open SSE stream of a client, as admitted."""

    instance: int
    token: int
    kind: StreamKind
    client_gen: Optional[int]    # generation of the last event the client got on this session
    serving_gen: Optional[int]   # generation the instance serves the session at
    cursor_foreign: bool         # ground truth: the presented cursor came from another session
    #                              and names no event of S's own stream (an id that is
    #                              byte-identical to one S issued is, to any server, S's own)
    frames: int = 0              # data frames delivered on this stream
    admission: str = "init"      # how it was opened: "init", "no_cursor" (a GET without
    #                              Last-Event-ID) or the admitting decision's effect
    stalled: bool = False        # it has been found dead (nothing can ever arrive on it while
    #                              the client is owed messages); deadness is stable while open
    ends_when_drained: bool = False  # the server closes it once its replay is delivered (it
    #                              carries no live events: another connection holds the stream)


class Item(NamedTuple):
    """An event in flight to a client on its open stream."""

    wire: WireId
    truth: Truth
    via: Via


class Cursor(NamedTuple):
    wire: WireId
    truth: Optional[Truth]


class Client(NamedTuple):
    phase: Phase
    token: Optional[int] = None
    cursor: Optional[Cursor] = None
    persisted: Optional[Tuple[Optional[int], Optional[Cursor]]] = None
    stream: Optional[Stream] = None
    inflight: Tuple[Item, ...] = ()
    applied: Pairs = ()                      # own message -> (token, generation) first applied
    missed: FrozenSet[int] = frozenset()    # own messages known lost: told by a gap, or
    #                                          reported as a silent loss (each counted once)
    seen: FrozenSet[WireId] = frozenset()    # durable log of ids applied on the current
    #                                          session (kept only with client_dedupe)
    inits: int = 0
    executed: Pairs = ()                     # ground truth: own call result -> (token,
    #                                          generation) of the servers' first execution
    ident: int = 0                           # unique over the run (slots of departed clients
    #                                          are reused); ground truth names clients by it


class State(NamedTuple):
    clients: Tuple[Client, ...]
    instances: Tuple[Instance, ...]
    registry: Pairs = ()         # token -> SessionRecord (store = "shared")
    buffers: Pairs = ()          # token -> Buffer (buffer = "shared")
    counter: int = 0             # shared event counter (event_ids = "global", shared buffers)
    serial: int = 0              # ground-truth emission serial
    next_token: int = 1
    rr: int = 0                  # round-robin pointer of the load balancer
    affinity: Pairs = ()         # token -> instance, learned by a sticky LB
    next_ident: int = 0          # identity of the next client to arrive
    owners: Pairs = ()           # token -> ident of the client that initialized it (ground truth)


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
    """A copy of a tuple with one element replaced."""
    return items[:index] + (value,) + items[index + 1:]


def holder(state: State, config: SystemConfig, token: int) -> Optional[int]:
    """The instance that runs session `token` at its current generation, if any (up or draining).
    Invariant: at most one instance holds a session at its registry generation."""
    record = tget(state.registry, token) if config.store == "shared" else None
    for index, inst in enumerate(state.instances):
        if inst.status == "down":
            continue
        live = tget(inst.sessions, token)
        if live is None:
            continue
        if config.store == "local" or (record is not None and live.generation == record.generation):
            return index
    return None


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
    live = tget(inst.sessions, token)
    assert live is not None
    inst = inst._replace(sessions=tset(inst.sessions, token, live._replace(orphan=orphan)))
    return state._replace(instances=replace_at(state.instances, instance, inst))


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
