"""mcp_resume_guard: StrictResumptionGuard, the model's `strict` resumption policy enforced in
front of an MCP Python SDK server (streamable HTTP); ResumptionGuard runs any other gate of the
model (or a user's) the same way, to put a real server behind it.

Every resumption (GET + Last-Event-ID) is decided by the gate (`model.policies.strict` for the
strict guard) before the SDK sees it, on what this process knows of its sessions, and an
admitted one does what the decision's effect says, so the guard and the model cannot drift.

Depends on the `model` package of this repository and the PyPI `mcp` package, nothing else (no
SimPy, numpy, nginx or uvicorn; any ASGI server serves it). Install with
`pip install -e '.[guard]'`, then:

    from mcp_resume_guard import StrictResumptionGuard

    guard = StrictResumptionGuard(capacity=256)     # or inner_store=your_event_store
    app = guard.wrap(server.streamable_http_app(event_store=guard.event_store))

  guard.py   ResumptionGuard, StrictResumptionGuard: the ASGI middleware and its decisions
  effects.py what an admitted resumption does to the guard's streams, effect by effect
  store.py   ids by scheme, per-session streams and the EventStore the SDK is given (standalone,
             or wrapping the deployment's own store)
  registry.py the fleet's session registry where the model's `store` says it lives: per process
             (LocalRegistry) or shared by the fleet in Redis (RedisRegistry; needs the `redis`
             package, `pip install -e '.[guard-redis]'`, imported only when one is built)
  shared_buffers.py  replay buffers shared by the fleet in Redis (SharedBuffers; `redis` too)
  adopt.py   serving a session this process does not hold: the SDK session recreated
  ids.py     the id schemes (tagged to deploy; counters and uuids to reproduce incidents)
"""
from .guard import INVALID_REQUEST, ResumptionGuard, StrictResumptionGuard
from .registry import (
    LocalRegistry,
    RedisRegistry,
    SessionExistsError,
    SessionRecord,
    SessionRegistry,
    view_fields,
)
from .shared_buffers import SharedBuffers
from .store import GuardedEventStore, TaggedId

__all__ = ["INVALID_REQUEST", "GuardedEventStore", "LocalRegistry", "RedisRegistry",
           "ResumptionGuard", "SessionExistsError", "SessionRecord", "SessionRegistry",
           "SharedBuffers", "StrictResumptionGuard", "TaggedId", "view_fields"]
