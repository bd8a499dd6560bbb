"""The formal model of MCP streamable-HTTP session resumption (DESIGN §1-§4).

Pure and deterministic: no SimPy, no I/O, no clocks, no global random state. Engines in
`simulations/` drive it through `enabled_actions` and `apply`, and judge runs with
`check_history`.
"""
from .actions import (Arrive, ClientRestart, Compact, Deliver, Depart, Disconnect, Drain, Emit,
                      Evict, ForeignCursor, IdleTimeout, Init, Persist, Reconnect, Start, Stop,
                      enabled_actions, is_enabled)
from .config import SystemConfig
from .errors import ActionNotEnabled, ConfigError, GateError, ModelError
from .policies import POLICIES, Gate, decide, resolve_gate
from .properties import (CLIENT_CAUSES, SERVER_CAUSES, VIOLATIONS, Finding, PropertyMonitor,
                         Report, check_history, duplicate_cause, findings_of)
from .protocol import Code, Decision, Effect, ResumeRequest, admit, reject
from .state import State, initial_state
from .transitions import Step, apply
from .view import BufferView, CursorView, ServerView

__all__ = [
    "ActionNotEnabled", "Arrive", "BufferView", "Depart", "is_enabled", "CLIENT_CAUSES", "ClientRestart", "Code", "Compact",
    "ConfigError", "CursorView", "Decision", "Deliver", "Disconnect", "Drain", "Effect", "Emit",
    "Evict", "Finding", "ForeignCursor", "Gate", "GateError", "IdleTimeout", "Init", "ModelError",
    "POLICIES", "Persist", "PropertyMonitor", "Reconnect", "Report", "ResumeRequest",
    "SERVER_CAUSES", "ServerView", "Start", "State", "Step", "Stop", "SystemConfig",
    "VIOLATIONS", "admit", "apply", "check_history", "decide", "duplicate_cause",
    "enabled_actions", "findings_of", "initial_state", "reject", "resolve_gate",
]
