"""Explorer verdicts for a DES deployment, looked up in a verification matrix (`cells.jsonl`).

A DES run's fleet is larger than any explored scope (3 instances, many sessions), so no cell is
*that* deployment. The closest honest statement is the cells that agree with it on every choice
that decides a verdict in the explored scopes (where the store and buffers live, how streams are
keyed, the id scheme, priming, client dedupe) and, among those, the ones with the most
instances and the same load balancer. What differs (instances, capacity, messages) is named
beside them; where no cell agrees, `nearest` says so.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .matrix import JUDGED, failing, unknown

DECIDING = ("store", "buffer", "buffer_keying", "event_ids", "priming", "client_dedupe")
NAMED = ("instances", "lb", "buffer_capacity", "messages_per_session", "messages_per_call",
         "side_effect_every")


def load_cells(matrix: Path) -> Optional[List[dict]]:
    path = Path(matrix) / "cells.jsonl"
    if not path.is_file():
        return None
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def nearest(cells: List[dict], system: Dict[str, object],
            policies: List[str]) -> Tuple[List[dict], Dict[str, object]]:
    """(the chosen cells, one per policy found; the deployment they share, with how it differs
    from `system`) or ([], {}) when no cell agrees on every deciding choice."""
    agree = [c for c in cells if all(c["deployment"].get(k) == system.get(k) for k in DECIDING)]
    if not agree:
        return [], {}

    def rank(c: dict) -> Tuple[int, int, int]:
        d = c["deployment"]
        return (d["lb"] == system.get("lb") or d["instances"] == 1, d["instances"],
                d.get("buffer_capacity") == system.get("buffer_capacity"))
    best = max(rank(c) for c in agree)
    chosen = [c for c in agree if rank(c) == best]
    keys = {json.dumps(c["deployment"], sort_keys=True) for c in chosen}
    deployment = json.loads(sorted(keys)[0])
    mine = [c for c in chosen if json.dumps(c["deployment"], sort_keys=True) == sorted(keys)[0]]
    differs = {k: (deployment.get(k), system.get(k)) for k in NAMED
               if k in deployment and deployment.get(k) != system.get(k)}
    found = [c for p in policies for c in mine if c["policy"] == p]
    return found, {"deployment": deployment, "differs": differs,
                   "block": mine[0]["block"], "scope": mine[0]["scope"]}


def verdict_cells(cell: dict) -> List[str]:
    """One entry per judged property: holds / excused / violated (n steps) / unknown."""
    bad, unsure = set(failing(cell)), set(unknown(cell))
    out = []
    for name in JUDGED:
        p = cell["properties"][name]
        if name in bad:
            out.append(f"**violated** ({p['trace_length']} steps)")
        elif name in unsure:
            out.append("unknown")
        elif p["verdict"] == "violated":
            out.append(f"excused ({p['excused_by']})")
        else:
            out.append("holds")
    return out
