"""The incident matrix: every scripted scenario under every policy, as records, a table and files.

`python -m simulations scenario --all` prints it; with `--out DIR` it also writes
`DIR/matrix.jsonl` (one record per scenario and policy), `DIR/matrix.txt` and `DIR/manifest.json`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Sequence

from model import VIOLATIONS
from model.properties import LABELS, legend

from .provenance import manifest, write_atomic, write_json
from .render import describe_action, event_json, markdown
from .script import ScenarioRun


def record(run: ScenarioRun) -> Dict[str, object]:
    """The machine-readable summary of one run."""
    summary = run.report.as_dict()
    keep = ("violations", "decisions", "statuses", "duplicates_by_cause", "reinits",
            "routing_reinits", "failed_clients")
    return {"scenario": run.scenario.name, "policy": run.gate,
            "client_profile": run.client_profile, **{k: summary[k] for k in keep},
            "retrying_forever": bool(run.cut_short), "gate_error": run.gate_error or None}


def trace(run: ScenarioRun) -> List[Dict[str, object]]:
    """Every step with its action and events (wire ids rendered), for `--json` on one run."""
    out = []
    for step in run.steps:
        events = [event_json(event) for event in step.events]
        out.append({"step": step.index, "phase": step.phase,
                    "action": describe_action(step.action) if step.action else None,
                    "skipped": step.skipped or None, "events": events})
    return out


def cell(run: ScenarioRun) -> str:
    parts = [f"{LABELS[name]}{n}" for name, n in run.report.violations.items() if n]
    if run.gate_error:
        parts.append("GATE-ERROR")
    return " ".join(parts) if parts else "-"


def matrix_table(runs: Sequence[ScenarioRun]) -> str:
    """Scenarios down, policies across; each cell lists the violated properties with counts."""
    scenarios = list(dict.fromkeys(run.scenario.name for run in runs))
    policies = list(dict.fromkeys(run.gate for run in runs))
    cells = {(run.scenario.name, run.gate): cell(run) for run in runs}
    rows = [[s] + [cells.get((s, p), "") for p in policies] for s in scenarios]
    table = markdown(("", ["scenario"] + policies, rows), with_title=False, aligned=True)
    return table + f"\n\n{legend(VIOLATIONS)}; - = no violation"


def write_results(runs: Sequence[ScenarioRun], out: Path, command: str) -> None:
    """matrix.jsonl, matrix.txt and manifest.json under `out`, each written atomically."""
    configs = {run.scenario.name: run.scenario.config.as_dict() for run in runs}
    lines = "".join(json.dumps(record(run), sort_keys=True) + "\n" for run in runs)
    table = matrix_table(runs) + "\n"
    meta = manifest(command, {"scenarios": configs,
                              "policies": list(dict.fromkeys(r.gate for r in runs)),
                              "client_profiles": sorted({r.client_profile for r in runs})})
    write_atomic(out / "matrix.jsonl", lines)  # everything is computed before the first write
    write_atomic(out / "matrix.txt", table)
    write_json(out / "manifest.json", meta)
