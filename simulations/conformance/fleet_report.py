"""The fleet's results folder: fleet.json (every cell, versions), FLEET.md (the incident matrix
with the fleet's verdict beside the model's in every cell, then the evidence) and manifest.json.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from ..provenance import manifest, write_atomic, write_json
from ..render import markdown
from .fleet import AGREES, FLEET_DEPLOYMENT, NOT_RUN, FleetRow

_INTRO = """\
# The incident matrix on a real fleet

Every scripted incident under every policy, run in lockstep on real processes: MCP Python SDK
servers (PyPI `mcp`, under uvicorn on 127.0.0.1), each behind `ResumptionGuard` deciding with
the cell's policy, behind a real nginx (round-robin, unbuffered). Every client request goes
through nginx, whose rotation the harness lines up with probe requests so that nginx itself
sends it where the model's load balancer does; each answer's `X-Upstream` is checked to be that
instance. The harness releases each tool message on the instance that holds the session, and
stops and restarts
processes as the script says. After every step it compares each answer (status, code), each
open stream (what it carried, whether it closed) and each client's cursor with the model's; at
the end, what each client applied. The model runs the scenario on the deployment the fleet
really is: the scenario's deployment (its ids and buffer keying included: the guard issues
and looks up ids as the scenario says) with what the SDK does beyond it: {deployment}.

A cell reads: the fleet's verdict (agrees / differs / not run), then the violations the model
finds on that deployment, then, where they differ, the incident matrix's verdict.
"not run" names what the fleet cannot be yet; it is never a verdict.

Regenerate: `python -m simulations conformance --fleet --out results/conformance/fleet` (part of
`make conformance`).
"""


def _violations(found: Dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(found.items())) or "none"


def cell(row: FleetRow) -> str:
    """One table cell: the fleet's verdict and what the model finds."""
    if row.status == NOT_RUN:
        return "not run"
    text = f"{row.status}: {_violations(row.model)}"
    if row.matrix != row.model:
        text += f" (matrix: {_violations(row.matrix)})"
    return text


def table(rows: List[FleetRow]) -> str:
    policies = list(dict.fromkeys(r.policy for r in rows))
    by_scenario: Dict[str, Dict[str, FleetRow]] = {}
    for r in rows:
        by_scenario.setdefault(r.scenario, {})[r.policy] = r
    body = [[scenario] + [cell(cells[p]) if p in cells else "-" for p in policies]
            for scenario, cells in by_scenario.items()]
    return markdown(("", ["scenario"] + policies, body), with_title=False)


def summary(rows: List[FleetRow]) -> str:
    ran = [r for r in rows if r.status != NOT_RUN]
    agree = sum(r.status == AGREES for r in ran)
    return (f"{agree} of {len(ran)} cells run agree; {len(rows) - len(ran)} of {len(rows)} "
            "not run yet")


def evidence(rows: List[FleetRow]) -> str:
    lines = []
    for r in rows:
        lines.append(f"- **{r.scenario} / {r.policy}** ({r.seconds:.1f} s): {r.status}: "
                     f"{r.detail}")
        if r.status != NOT_RUN:
            lines.append("  - applied on the fleet: " + "; ".join(
                f"{c} {' '.join(labels) or '-'}" for c, labels in r.applied.items()))
    return "\n".join(lines)


def write_fleet(folder: Path, rows: List[FleetRow], env: Dict[str, str],
                scenarios: List[str], policies: List[str]) -> None:
    folder = Path(folder)
    deployment = ", ".join(f"`{k} = {v!r}`" for k, v in FLEET_DEPLOYMENT.items())
    text = (_INTRO.format(deployment=deployment) + f"\n## Table ({summary(rows)})\n\n"
            + table(rows) + "\n\n## Evidence\n\n" + evidence(rows) + "\n\n## Versions\n\n"
            + "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n")
    write_json(folder / "fleet.json", {"environment": env,
                                       "rows": [r.as_dict() for r in rows]})
    write_atomic(folder / "FLEET.md", text)
    write_json(folder / "manifest.json", manifest(
        "python -m simulations conformance --fleet",
        {"scenarios": scenarios, "policies": policies, "deployment": FLEET_DEPLOYMENT,
         "versions": env}))


def load_rows(folder: Path) -> List[FleetRow]:
    import json
    data = json.loads((Path(folder) / "fleet.json").read_text())
    return [FleetRow(**row) for row in data["rows"]]
