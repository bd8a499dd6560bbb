"""The server side's records: a session in the shared registry, a session live in a process,
and the process (an instance) itself.

Records (`model.record`): immutable, compared and hashed by value. `anon_hash` is a record's
hash with the clients it names taken out, for symmetry reduction (`model.symmetry`).
"""
from __future__ import annotations

from typing import Any, Final, Tuple

from .pairs import Pairs
from .record import KEEP, UNHASHED, Record
from .vocabulary import Status


class SessionRecord(Record):
    """A session in the shared registry (store = "shared")."""

    __slots__ = ("client", "work_start", "generation")
    _fields = ("client", "work_start", "generation")
    client: Final[int]
    work_start: Final[int]
    generation: Final[int]

    def __init__(self, client: int, work_start: int, generation: int) -> None:
        self.client = client
        self.work_start = work_start
        self.generation = generation
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.work_start, self.generation)

    def replace(self, client: Any = KEEP, work_start: Any = KEEP,
                generation: Any = KEEP) -> SessionRecord:
        return SessionRecord(self.client if client is KEEP else client,
                             self.work_start if work_start is KEEP else work_start,
                             self.generation if generation is KEEP else generation)

    def anon_hash(self) -> int:
        """The hash without the client it names (symmetry reduction)."""
        return hash((self.work_start, self.generation))


class LiveSession(Record):
    """A session's live state inside one process: its generation, the next message of its work to
    emit, and its per-session event counter. With store = "local" this is also the registry."""

    __slots__ = ("client", "work_start", "generation", "next_msg", "seq", "orphan", "_anon")
    _fields = ("client", "work_start", "generation", "next_msg", "seq", "orphan")
    client: Final[int]
    work_start: Final[int]
    generation: Final[int]
    next_msg: Final[int]
    seq: Final[int]
    orphan: Final[str]      # the process still writes this session's stream into a connection
    #                         whose client is gone (half-open): "call" (the call's own stream,
    #                         which ends with the call's result) or "resumed" (a resumed
    #                         stream, which ends only with its connection); "" none
    _anon: int

    def __init__(self, client: int, work_start: int, generation: int, next_msg: int, seq: int,
                 orphan: str = "") -> None:
        self.client = client
        self.work_start = work_start
        self.generation = generation
        self.next_msg = next_msg
        self.seq = seq
        self.orphan = orphan
        self._hash = self._anon = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.work_start, self.generation, self.next_msg, self.seq,
                self.orphan)

    def replace(self, client: Any = KEEP, work_start: Any = KEEP, generation: Any = KEEP,
                next_msg: Any = KEEP, seq: Any = KEEP, orphan: Any = KEEP) -> LiveSession:
        return LiveSession(self.client if client is KEEP else client,
                           self.work_start if work_start is KEEP else work_start,
                           self.generation if generation is KEEP else generation,
                           self.next_msg if next_msg is KEEP else next_msg,
                           self.seq if seq is KEEP else seq,
                           self.orphan if orphan is KEEP else orphan)

    def anon_hash(self) -> int:
        """The hash without the client it names (symmetry reduction)."""
        h = self._anon
        if h == UNHASHED:
            h = self._anon = hash((self.work_start, self.generation, self.next_msg, self.seq,
                                   self.orphan))
        return h


class Instance(Record):
    __slots__ = ("status", "incarnation", "sessions", "buffers", "counter", "records", "_anon")
    _fields = ("status", "incarnation", "sessions", "buffers", "counter", "records")
    status: Final[Status]
    incarnation: Final[int]      # bumped by every start
    sessions: Final[Pairs]       # token -> LiveSession (stateless: request id -> the request)
    buffers: Final[Pairs]        # token -> Buffer (buffer = "local")
    counter: Final[int]          # process-wide event counter (event_ids = "global", local buffers)
    records: Final[Pairs]        # idempotency key (model.stateless.record_key: the client and
    #                              the call's result message) -> request id that executed the
    #                              call: execution records (execution_record = "local")
    _anon: int

    def __init__(self, status: Status, incarnation: int, sessions: Pairs = (),
                 buffers: Pairs = (), counter: int = 0, records: Pairs = ()) -> None:
        self.status = status
        self.incarnation = incarnation
        self.sessions = sessions
        self.buffers = buffers
        self.counter = counter
        self.records = records
        self._hash = self._anon = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return (self.status, self.incarnation, self.sessions, self.buffers, self.counter,
                self.records)

    def replace(self, status: Any = KEEP, incarnation: Any = KEEP, sessions: Any = KEEP,
                buffers: Any = KEEP, counter: Any = KEEP, records: Any = KEEP) -> Instance:
        return Instance(self.status if status is KEEP else status,
                        self.incarnation if incarnation is KEEP else incarnation,
                        self.sessions if sessions is KEEP else sessions,
                        self.buffers if buffers is KEEP else buffers,
                        self.counter if counter is KEEP else counter,
                        self.records if records is KEEP else records)

    def anon_hash(self) -> int:
        """The hash without the clients its sessions name (symmetry reduction). Execution
        records name clients too: a configuration that keeps them is explored without
        symmetry reduction (`model.symmetry`)."""
        h = self._anon
        if h == UNHASHED:
            h = self._anon = hash((self.status, self.incarnation,
                                   tuple([(t, _live(s).anon_hash()) for t, s in self.sessions]),
                                   self.buffers, self.counter, self.records))
        return h

    def session_clients(self) -> Tuple[int, ...]:
        """The client each of its sessions names, in token order."""
        return tuple([_live(s).client for _, s in self.sessions])


def _live(value: Any) -> LiveSession:
    """A value of `Instance.sessions` (every one is a LiveSession) as one: compiled, its fields
    and methods are then reached natively, not looked up by name."""
    return value
