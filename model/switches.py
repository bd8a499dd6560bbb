"""The model's fast paths, each of which a test can switch off to compare it with its definition.

Each is an attribute of `SWITCHES`, the one object the model's modules read on every call, so
switching one works for the compiled model and the compiled explorer too (compiled, the object
sits in a C static and its attribute is a native field: no module-dict lookup per transition).
Switch one off in a test with `monkeypatch.setattr(SWITCHES, name, False)`:

- `fingerprints_from_parts`: fingerprints from the component hashes under one canonical
  renaming (`model.symmetry`); off, from every renamed state built in full
  (`fingerprint_by_renaming`, the definition).
- `incremental_stall_marking`: after a transition, re-judge only the streams it could have made
  dead (`model.transitions.mark_stalls`' `before`); off, judge every open stream.
- `quiet_events_skipped`: the events `model.properties.quiet` clears skip every check; off,
  every check reads every event of its kinds.
"""
from __future__ import annotations

from typing import Final


class Switches:
    """Which fast paths are on (all, unless a test switched one off)."""

    def __init__(self) -> None:
        self.fingerprints_from_parts = True
        self.incremental_stall_marking = True
        self.quiet_events_skipped = True


#: the switches every module of the model reads
SWITCHES: Final = Switches()
