"""Named actions of the transition model (which are enabled in a state: `model.enabled`).

Every engine drives the system only through these: the explorer tries every enabled action, the
DES and the scripts pick one. Actions are records (`model.record`): immutable, equal only to an
action of the same kind with the same fields (Emit(1) != Drain(1)), hashable, and cheap to build.
"""
from __future__ import annotations

from typing import Any, Dict, Final, Optional, Tuple, Union

from .record import UNHASHED, Record


class ClientAction(Record):
    """An action of one client (`client`: its slot)."""

    __slots__ = ("client",)
    _fields = ("client",)
    client: Final[int]

    def __init__(self, client: int) -> None:
        self.client = client

    def _key(self) -> Tuple[Any, ...]:
        return (self.client,)

    def __hash__(self) -> int:
        return self.client * _ONE_NAME + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClientAction) and type(other) is type(self) and \
            other.client == self.client


class RoutedRequest(Record):
    """A client's request that the LB routed to `instance`."""

    __slots__ = ("client", "instance")
    _fields = ("client", "instance")
    client: Final[int]
    instance: Final[int]

    def __init__(self, client: int, instance: int) -> None:
        self.client = client
        self.instance = instance

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.instance)

    def __hash__(self) -> int:
        return (self.client * _NAMES + self.instance) * _KINDS + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoutedRequest) and type(other) is type(self) and \
            other.client == self.client and other.instance == self.instance


class InstanceAction(Record):
    """An action of one instance (`instance`: its index)."""

    __slots__ = ("instance",)
    _fields = ("instance",)
    instance: Final[int]

    def __init__(self, instance: int) -> None:
        self.instance = instance

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance,)

    def __hash__(self) -> int:
        return self.instance * _ONE_NAME + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, InstanceAction) and type(other) is type(self) and \
            other.instance == self.instance


class SessionAction(Record):
    """An action on one session (`token`)."""

    __slots__ = ("token",)
    _fields = ("token",)
    token: Final[int]

    def __init__(self, token: int) -> None:
        self.token = token

    def _key(self) -> Tuple[Any, ...]:
        return (self.token,)

    def __hash__(self) -> int:
        return self.token * _ONE_NAME + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SessionAction) and type(other) is type(self) and \
            other.token == self.token


class Init(RoutedRequest):
    """The client sends initialize (a first session, or re-initialization), routed by the LB."""

    __slots__ = ()


class Reconnect(RoutedRequest):
    """GET + Mcp-Session-Id + Last-Event-ID, routed by the LB to `instance`, decided by the gate."""

    __slots__ = ()


class Emit(SessionAction):
    """The instance running session `token` emits the next message of its work."""

    __slots__ = ()


class Evict(SessionAction):
    """The session expires (TTL) or is evicted: it is gone from every registry and buffer."""

    __slots__ = ()


class Deliver(ClientAction):
    """The first event in flight on the client's stream reaches it and is applied."""

    __slots__ = ()


class Persist(ClientAction):
    """The client writes its session token and live cursor to durable storage."""

    __slots__ = ()


class Disconnect(ClientAction):
    """The network drops the client's stream; events in flight are lost (not the work)."""

    __slots__ = ()


class HalfOpen(ClientAction):
    """The client's side of its stream is gone (a proxy or NAT dropped it) and the server has
    not noticed: the client's events in flight are lost, and the server goes on writing the
    session's stream into the dead connection until that stream ends."""

    __slots__ = ()


class ClientRestart(ClientAction):
    """The client process restarts and falls back to its persisted token and cursor."""

    __slots__ = ()


class IdleTimeout(ClientAction):
    """The LB closes the client's stream because it carries no data."""

    __slots__ = ()


class Depart(ClientAction):
    """The client leaves (its work is done, or it gave up); its slot can be reused. Enabled for
    any present client; never listed by `enabled_actions`."""

    __slots__ = ()


class Drain(InstanceAction):
    """The LB stops routing new requests to the instance; its streams keep flowing."""

    __slots__ = ()


class Stop(InstanceAction):
    """The instance process stops (after a drain) or crashes (without one): local state is lost."""

    __slots__ = ()


class Start(InstanceAction):
    """A stopped instance starts (a restart or a replacement) with empty local state."""

    __slots__ = ()


class ForeignCursor(Record):
    """A client bug: the client's cursor is replaced by `donor`'s (another session's) cursor."""

    __slots__ = ("client", "donor")
    _fields = ("client", "donor")
    client: Final[int]
    donor: Final[int]

    def __init__(self, client: int, donor: int) -> None:
        self.client = client
        self.donor = donor

    def _key(self) -> Tuple[Any, ...]:
        return (self.client, self.donor)

    def __hash__(self) -> int:
        return (self.client * _NAMES + self.donor) * _KINDS + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForeignCursor) and other.client == self.client and \
            other.donor == self.donor


class Compact(Record):
    """The buffer of `token` drops its oldest event (the floor rises). `instance` None: shared."""

    __slots__ = ("instance", "token")
    _fields = ("instance", "token")
    instance: Final[Optional[int]]
    token: Final[int]

    def __init__(self, instance: Optional[int], token: int) -> None:
        self.instance = instance
        self.token = token

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.token)

    def __hash__(self) -> int:
        return (_name_or_none(self.instance) * _NAMES + self.token) * _KINDS + \
            _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Compact) and other.instance == self.instance and \
            other.token == self.token


class Expire(Record):
    """The execution record of `client`'s call whose result is message `msg` expires (its TTL:
    stateless+idempotency); on the tasks transport, `client`'s task record whose task id is
    `msg`. `instance` None: the shared record store."""

    __slots__ = ("instance", "client", "msg")
    _fields = ("instance", "client", "msg")
    instance: Final[Optional[int]]
    client: Final[int]      # the client's identity (the key's owner), not its slot
    msg: Final[int]

    def __init__(self, instance: Optional[int], client: int, msg: int) -> None:
        self.instance = instance
        self.client = client
        self.msg = msg

    def _key(self) -> Tuple[Any, ...]:
        return (self.instance, self.client, self.msg)

    def __hash__(self) -> int:
        return ((_name_or_none(self.instance) * _NAMES + self.client) * _NAMES + self.msg) \
            * _KINDS + _KIND_OF[type(self)]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expire) and other.instance == self.instance and \
            other.client == self.client and other.msg == self.msg


def _name_or_none(instance: Optional[int]) -> int:
    """An optional instance as a name for a hash: 0 for None (shared), its index + 1 else."""
    return 0 if instance is None else instance + 1


class Arrive(Record):
    """A new client arrives (open systems: the DES). It takes the slot of a departed client, or
    a new one. Always enabled; never listed by `enabled_actions`."""

    __slots__ = ()

    def __init__(self) -> None:
        self._hash = UNHASHED

    def _key(self) -> Tuple[Any, ...]:
        return ()


Action = Union[Init, Deliver, Persist, Disconnect, HalfOpen, ClientRestart, Reconnect,
               IdleTimeout, ForeignCursor, Emit, Drain, Stop, Start, Evict, Compact, Expire,
               Arrive, Depart]
#: every kind of action, by name (ClientAction and the other bases are not actions)
ACTIONS: Dict[str, type] = {kind.__name__: kind for kind in (
    Init, Deliver, Persist, Disconnect, HalfOpen, ClientRestart, Reconnect, IdleTimeout,
    ForeignCursor, Emit, Drain, Stop, Start, Evict, Compact, Expire, Arrive, Depart)}
#: each kind's number (its place in ACTIONS), which the hash of every action but `Arrive`
#: folds in below its names (an instance that may be None, shared, counts as its index + 1):
#: actions of different kinds on the same names hash apart (a tuple of the names alone would
#: not: `Deliver(0)`, `Persist(0)`, `Stop(0)`, `Emit(0)`... would share one hash and one chain
#: of probes in a dict of actions), and the values are the same in every process. The kind is
#: the hash modulo _KINDS, never _KINDS - 1, so no hash is -1 (which CPython takes for an
#: error), whatever the names. The sum is cheap, so it is computed at every call: these
#: actions keep no `_hash`, and equality compares their fields, not tuples of them (a search
#: looks every action up in a dict of the actions it has met).
_KIND_OF: Final[Dict[type, int]] = {kind: k for k, kind in enumerate(ACTIONS.values())}
_KINDS: Final = 32
#: names below _NAMES (clients, instances, tokens) give distinct hashes to distinct actions;
#: larger ones may collide, never compare equal (equality is `_key()`'s)
_NAMES: Final = 1024
_ONE_NAME: Final = _NAMES * _KINDS
assert len(_KIND_OF) < _KINDS - 1
