"""The session registry of a server fleet: which sessions exist and at which generation, where
the model's `store` placement says it lives. `LocalRegistry` is one process's own (store =
"local"); `RedisRegistry` is one Redis shared by every process of the fleet (store = "shared").
Both answer the same async interface (`SessionRegistry`) and behave alike, clocks aside.

Invariants (both implementations):
  - a record's generation starts at 1 and changes only by `adopt`, one step at a time, and only
    from the generation the adopter saw (a compare-and-set: of processes racing to adopt the
    same generation exactly one wins);
  - `created` never changes; `touched` is the time of the last create, touch or adopt;
  - a record is gone (every operation treats it as absent) once `idle_ttl` has passed since
    `touched` or `absolute_ttl` since `created`, whichever comes first: renewing the idle TTL
    never extends a record past created + absolute_ttl;
  - each operation is atomic: no caller sees or makes a half-updated record.
"""
from __future__ import annotations

import abc
import math
import time
from typing import Callable, Dict, NamedTuple, Optional, Tuple


class SessionRecord(NamedTuple):
    """A session as the registry knows it; times in seconds on the registry's clock (the
    injected clock of a LocalRegistry, the Redis server's Unix time for a RedisRegistry)."""
    session_id: str
    generation: int
    created: float
    touched: float


class SessionExistsError(Exception):
    """`create` of a session id the registry already holds (live)."""


def _ttl(name: str, value) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number of seconds or None, "
                         f"not {value!r}")
    return float(value)


def _session_id(session_id) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty str, not {session_id!r}")
    return session_id


def _generation(seen_generation) -> int:
    if type(seen_generation) is not int or seen_generation < 1:      # a bool is no generation
        raise ValueError(f"seen_generation must be an int >= 1, not {seen_generation!r}")
    return seen_generation


class SessionRegistry(abc.ABC):
    """The registry interface. Session ids are non-empty strings (ValueError otherwise)."""

    @abc.abstractmethod
    async def create(self, session_id: str) -> SessionRecord:
        """Register a new session at generation 1; SessionExistsError if it is registered."""

    @abc.abstractmethod
    async def get(self, session_id: str) -> Optional[SessionRecord]:
        """The session's record; None once it expired or was forgotten (or never existed)."""

    @abc.abstractmethod
    async def touch(self, session_id: str) -> bool:
        """Renew the idle TTL (never past created + absolute_ttl); False if the session is gone."""

    @abc.abstractmethod
    async def adopt(self, session_id: str, seen_generation: int) -> Optional[SessionRecord]:
        """Serve a session this process found registered but does not hold as a new generation:
        atomically set generation = seen_generation + 1 (renewing the idle TTL) only if the
        stored generation is still `seen_generation`. The new record, or None if the session
        is gone or another process adopted it first."""

    @abc.abstractmethod
    async def forget(self, session_id: str) -> bool:
        """Remove the session; whether it was registered."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release what the registry holds open."""

    @abc.abstractmethod
    async def set_label(self, session_id: str, label: str) -> bool:
        """Attach `label` (the guard's id key of the session: what its tagged ids carry) to a
        registered session, so that any process can tell its ids from another session's;
        False if the session is gone."""

    @abc.abstractmethod
    async def label_of(self, session_id: str) -> Optional[str]:
        """The session's label; None if it has none or is gone."""

    async def __aenter__(self) -> "SessionRegistry":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


class LocalRegistry(SessionRegistry):
    """One process's registry (the model's store = "local"), in memory, on `clock` (seconds;
    inject a fake one to test TTLs). A record is gone from the instant its deadline is reached.
    Expired records are dropped when next looked up, and all of them by an occasional sweep
    (when the table has doubled since the last), so memory stays bounded by the live ones."""

    def __init__(self, idle_ttl: Optional[float] = None, absolute_ttl: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_ttl = _ttl("idle_ttl", idle_ttl)
        self.absolute_ttl = _ttl("absolute_ttl", absolute_ttl)
        if not callable(clock):
            raise ValueError(f"clock must be a callable returning seconds, not {clock!r}")
        self._clock, self._sweep_at = clock, 64
        self._records: Dict[str, SessionRecord] = {}
        self._labels: Dict[str, str] = {}

    def _deadline(self, record: SessionRecord) -> float:
        idle = math.inf if self.idle_ttl is None else record.touched + self.idle_ttl
        cap = math.inf if self.absolute_ttl is None else record.created + self.absolute_ttl
        return min(idle, cap)

    def _live(self, session_id: str, now: float) -> Optional[SessionRecord]:
        record = self._records.get(_session_id(session_id))
        if record is not None and now >= self._deadline(record):
            del self._records[session_id]
            return None
        return record

    async def create(self, session_id: str) -> SessionRecord:
        now = self._clock()
        if self._live(session_id, now) is not None:
            raise SessionExistsError(session_id)
        if len(self._records) >= self._sweep_at:
            self._records = {k: r for k, r in self._records.items() if now < self._deadline(r)}
            self._sweep_at = max(64, 2 * len(self._records))
        self._records[session_id] = SessionRecord(session_id, 1, now, now)
        return self._records[session_id]

    async def get(self, session_id: str) -> Optional[SessionRecord]:
        return self._live(session_id, self._clock())

    async def touch(self, session_id: str) -> bool:
        now = self._clock()
        record = self._live(session_id, now)
        if record is None:
            return False
        self._records[session_id] = record._replace(touched=now)
        return True

    async def adopt(self, session_id: str, seen_generation: int) -> Optional[SessionRecord]:
        seen = _generation(seen_generation)
        now = self._clock()
        record = self._live(session_id, now)
        if record is None or record.generation != seen:
            return None
        record = self._records[session_id] = record._replace(generation=seen + 1, touched=now)
        return record

    async def forget(self, session_id: str) -> bool:
        found = self._live(session_id, self._clock()) is not None
        self._records.pop(session_id, None)
        self._labels.pop(session_id, None)
        return found

    async def set_label(self, session_id: str, label: str) -> bool:
        if self._live(session_id, self._clock()) is None:
            return False
        self._labels[session_id] = label
        return True

    async def label_of(self, session_id: str) -> Optional[str]:
        if self._live(session_id, self._clock()) is None:
            self._labels.pop(session_id, None)
            return None
        return self._labels.get(session_id)

    async def close(self) -> None:
        """Nothing to release: the records live as long as the object (the process)."""


# Shared by the scripts: the Redis server's clock in milliseconds, and `store`, which writes a
# record and sets its key's expiry to min(now + idle, created + absolute) (ARGV[1], ARGV[2]: the
# TTLs in ms, '' for none); a deadline already reached deletes the key and answers false.
_LUA_PRELUDE = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function store(key, gen, created, now)
  local at = nil
  if ARGV[1] ~= '' then at = now + tonumber(ARGV[1]) end
  if ARGV[2] ~= '' then
    local cap = created + tonumber(ARGV[2])
    if at == nil or cap < at then at = cap end
  end
  if at ~= nil and at <= now then redis.call('DEL', key) return false end
  redis.call('HSET', key, 'generation', string.format('%d', gen),
             'created', string.format('%d', created), 'touched', string.format('%d', now))
  if at == nil then redis.call('PERSIST', key)
  else redis.call('PEXPIREAT', key, string.format('%d', at)) end
  return {gen, created, now}
end
"""
_CREATE = _LUA_PRELUDE + """
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local now = now_ms()
return store(KEYS[1], 1, now, now)
"""
# touch (ARGV[3] == '') or adopt (ARGV[3]: the generation the adopter saw)
_RENEW = _LUA_PRELUDE + """
local f = redis.call('HMGET', KEYS[1], 'generation', 'created')
if not f[1] then return false end
local gen = tonumber(f[1])
if ARGV[3] ~= '' then
  if gen ~= tonumber(ARGV[3]) then return false end
  gen = gen + 1
end
return store(KEYS[1], gen, tonumber(f[2]), now_ms())
"""


class RedisRegistry(SessionRegistry):
    """The fleet's registry (the model's store = "shared") in Redis (server 5 or later), on
    `redis.asyncio`: every process constructs one on the same server and prefix.

    Key layout: one hash per session at `prefix + session_id`, fields `generation`, `created`
    and `touched` (integers: milliseconds of the Redis server's Unix time, from TIME, so every
    process agrees). The TTLs are the key's expiry, an absolute PEXPIREAT at min(touched +
    idle_ttl, created + absolute_ttl), set by every create, touch and adopt (Redis deletes the
    key then; 1 ms resolution); without TTLs the key persists. create, touch and adopt are Lua
    scripts (atomic, one key each, so a Redis Cluster serves them); get is one HMGET, forget one
    DEL. `url_or_client` is a Redis URL (the registry owns the client it opens and closes it) or
    a `redis.asyncio.Redis` (the caller's, left open by `close`)."""

    def __init__(self, url_or_client, *, prefix: str = "mcp:session:",
                 idle_ttl: Optional[float] = None, absolute_ttl: Optional[float] = None) -> None:
        self.idle_ttl = _ttl("idle_ttl", idle_ttl)
        self.absolute_ttl = _ttl("absolute_ttl", absolute_ttl)
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"prefix must be a non-empty str, not {prefix!r}")
        self.prefix = prefix
        if isinstance(url_or_client, str):
            if not url_or_client:
                raise ValueError("url_or_client must be a Redis URL or a redis.asyncio client, "
                                 "not ''")
            try:
                from redis.asyncio import Redis
            except ImportError as exc:
                raise ImportError("RedisRegistry needs the redis package: "
                                  "pip install -e '.[guard-redis]'") from exc
            self.client, self._owned = Redis.from_url(url_or_client), True
        elif callable(getattr(url_or_client, "register_script", None)):
            self.client, self._owned = url_or_client, False
        else:
            raise ValueError(f"url_or_client must be a Redis URL or a redis.asyncio client, "
                             f"not {url_or_client!r}")
        self._ttl_args = tuple("" if t is None else str(max(1, round(t * 1000)))
                               for t in (self.idle_ttl, self.absolute_ttl))
        self._create = self.client.register_script(_CREATE)
        self._renew = self.client.register_script(_RENEW)

    def key(self, session_id: str) -> str:
        """The Redis key of a session's hash."""
        return self.prefix + _session_id(session_id)

    def _record(self, session_id: str, reply) -> Optional[SessionRecord]:
        """The record of a script's or HMGET's reply (generation, created ms, touched ms)."""
        if not reply or reply[0] is None:
            return None
        generation, created, touched = (int(v) for v in reply)
        return SessionRecord(session_id, generation, created / 1000, touched / 1000)

    async def create(self, session_id: str) -> SessionRecord:
        reply = await self._create(keys=[self.key(session_id)], args=[*self._ttl_args])
        if not reply:
            raise SessionExistsError(session_id)
        return self._record(session_id, reply)

    async def get(self, session_id: str) -> Optional[SessionRecord]:
        reply = await self.client.hmget(self.key(session_id), "generation", "created", "touched")
        return self._record(session_id, reply)

    async def touch(self, session_id: str) -> bool:
        return bool(await self._renew(keys=[self.key(session_id)], args=[*self._ttl_args, ""]))

    async def adopt(self, session_id: str, seen_generation: int) -> Optional[SessionRecord]:
        seen = _generation(seen_generation)
        reply = await self._renew(keys=[self.key(session_id)], args=[*self._ttl_args, str(seen)])
        return self._record(session_id, reply)

    async def forget(self, session_id: str) -> bool:
        return bool(await self.client.delete(self.key(session_id)))

    async def set_label(self, session_id: str, label: str) -> bool:
        if not await self.client.exists(self.key(session_id)):   # gone (or expired)
            return False
        await self.client.hset(self.key(session_id), "label", label)
        return True

    async def label_of(self, session_id: str) -> Optional[str]:
        raw = await self.client.hget(self.key(session_id), "label")
        return raw.decode() if isinstance(raw, bytes) else raw

    async def close(self) -> None:
        if self._owned:
            await self.client.aclose()


def view_fields(record: Optional[SessionRecord], held_generation: Optional[int],
                shared: bool) -> Tuple[bool, bool, bool, Optional[int]]:
    """(known, held, recreates, generation) of the model's ServerView (registry_has_session,
    held_locally, recreates, generation) for a process that finds `record` in the registry and
    holds the session at `held_generation` (None: not at all). Mirrors `model.observe.
    build_view` exactly. Shared store: known iff registered; held iff the process holds the
    registered generation; otherwise serving it recreates it as the next generation. Local
    store: the process's own sessions are its registry, so `record` is not consulted: known
    iff held, and nothing is ever recreated."""
    if shared:
        known = record is not None
        held = known and held_generation is not None and held_generation == record.generation
        recreates = known and not held
        generation = held_generation if held else (record.generation + 1 if known else None)
    else:
        known = held = held_generation is not None
        recreates = False
        generation = held_generation if held else None
    return known, held, recreates, generation
