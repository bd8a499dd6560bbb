"""The formal model of MCP streamable-HTTP session resumption.

Pure and deterministic: no SimPy, no I/O, no clocks, no global random state. Engines in
`simulations/` drive it through `enabled_actions` and `apply`, and judge runs with
`check_history`.

The modules load compiled when `python -m simulations compile` has built them for exactly these
sources, else from source (model/native.py); `COMPILED` and `BUILD` say which.
"""
import os as _os

from . import native as _native

_build_dir, BUILD = _native.native_dir(_os.path.dirname(__file__))
COMPILED = _build_dir is not None
if _build_dir is not None:
    __path__.insert(0, _build_dir)  # noqa: F821 (the package's search path)

from .actions import (
    Arrive,
    ClientRestart,
    Compact,
    Deliver,
    Depart,
    Disconnect,
    Drain,
    Emit,
    Evict,
    Expire,
    ForeignCursor,
    HalfOpen,
    IdleTimeout,
    Init,
    Persist,
    Reconnect,
    Start,
    Stop,
)
from .config import SystemConfig
from .enabled import enabled_actions, is_enabled
from .errors import ActionNotEnabled, ConfigError, GateError, ModelError
from .monitor import PropertyMonitor, Report, check_history
from .policies import NAMED_GATES, POLICIES, Gate, decide, resolve_gate, unknown_policy
from .properties import (
    CLIENT_CAUSES,
    COSTS,
    PROPERTIES,
    RECOVERY_CAUSES,
    SERVER_CAUSES,
    SOMETIMES_CHECKS,
    VERDICT_PROPERTIES,
    VIOLATIONS,
    Finding,
    Property,
    duplicate_cause,
    findings_of,
)
from .protocol import Code, Decision, Effect, ResumeRequest, admit, reject
from .state import State, initial_state
from .transitions import Step, apply, decision_of, question_of
from .view import BufferView, CursorView, ServerView

__all__ = [
    "BUILD", "COMPILED",
    "ActionNotEnabled", "Arrive", "BufferView", "CLIENT_CAUSES", "COSTS", "ClientRestart", "Code",
    "Compact", "ConfigError", "CursorView", "Decision", "Deliver", "Depart", "Disconnect", "Drain",
    "Effect", "Emit", "Evict", "Expire", "Finding", "ForeignCursor", "Gate", "GateError",
    "HalfOpen", "IdleTimeout", "Init", "ModelError", "NAMED_GATES", "POLICIES", "PROPERTIES",
    "Persist", "Property", "PropertyMonitor",
    "RECOVERY_CAUSES", "Reconnect", "Report", "ResumeRequest", "SERVER_CAUSES",
    "SOMETIMES_CHECKS", "ServerView", "Start", "State", "Step", "Stop", "SystemConfig",
    "VERDICT_PROPERTIES", "VIOLATIONS", "admit", "apply", "check_history", "decide",
    "decision_of",
    "question_of",
    "duplicate_cause", "enabled_actions", "findings_of", "initial_state", "is_enabled", "reject",
    "resolve_gate", "unknown_policy",
]
