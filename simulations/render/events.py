"""History events as JSON: the one way a transition's facts are written for machines (`--json`
traces of scenarios and explorations, conformance evidence)."""
from __future__ import annotations

from typing import Dict

from model.event_ids import render
from model.record import Record


def _jsonable(value):
    if isinstance(value, Record):
        return {f: _jsonable(v) for f, v in value._asdict().items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {f: _jsonable(getattr(value, f)) for f in value._fields}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def event_json(event) -> Dict[str, object]:
    """A history event as JSON: its type and fields, wire ids rendered (e3, S1.g1.2, u0001)."""
    fields = {k: (render(v) if k in ("wire", "cursor", "resume_from", "dropped")
                  else _jsonable(v)) for k, v in event._asdict().items()}
    return {"type": type(event).__name__, **fields}
