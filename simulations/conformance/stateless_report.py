"""The stateless cases' rows: what the real SDK did beside the model's prediction, as a table,
the evidence per row, and a results folder (stateless.json, STATELESS-RESULTS.md, manifest).
No third-party imports: rows written by a run can be read and rendered anywhere.

Invariant: a row agrees exactly when every field of the two Outcomes is equal; a row that
differs is "settled" only when its case documents why (`StatelessCase.explained`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from ..provenance import manifest, write_atomic, write_json
from ..render import markdown
from .stateless_cases import Outcome

REAL_COLUMN = "real MCP Python SDK (2026-07-28, modern entry)"
MODEL_COLUMN = "model (transport stateless)"

_INTRO = """\
# Conformance without sessions: the model's `stateless` transport against the real SDK

Each case runs the MCP Python SDK's server in its modern mode (every request carries
`MCP-Protocol-Version: 2026-07-28`: no session, the response streamed on its own POST) under
uvicorn on 127.0.0.1, two of them behind nginx round-robin for the failover, with a tool whose
side effect is a line in a ledger file every instance shares; a raw HTTP client re-issues the
call as a new request after the break. The model runs the same case as a scripted scenario on
the `stateless` transport. A row agrees when the executions per call, what became of the broken
request, where the re-issue ran, the re-issues, the judged duplicate executions and the
client's end are the same on both sides.

Regenerate: `python -m simulations conformance --transport stateless --out DIR`.
"""


class Row(NamedTuple):
    case: str
    topology: str
    model: Outcome
    real: Optional[Outcome]
    agree: bool
    differences: List[str]
    evidence: str
    note: str
    seconds: float
    explained: str = ""      # the case's documented reason for a difference

    @property
    def settled(self) -> bool:
        return self.agree or bool(self.explained)

    def as_dict(self) -> Dict[str, object]:
        out = dict(self._asdict())
        out["settled"] = self.settled
        out["model"] = self.model.as_dict()
        out["real"] = self.real.as_dict() if self.real is not None else None
        return out

    @staticmethod
    def from_dict(data: Dict) -> "Row":
        fields = dict(data)
        fields.pop("settled", None)
        fields["model"] = Outcome.from_dict(fields["model"])
        fields["real"] = Outcome.from_dict(fields["real"]) if fields["real"] else None
        return Row(**fields)


def describe(outcome: Optional[Outcome]) -> str:
    """An outcome in one cell: "executed 2x; broken request ran_on; re-issue on same process;
    duplicate_execution 1; client completed"."""
    if outcome is None:
        return "-"
    runs = ", ".join(f"{n}x" for n in outcome.executions)
    return (f"executed {runs}; broken request {outcome.broken}; re-issued {outcome.reissues}x "
            f"on {outcome.reissue_on}; duplicate_execution {outcome.duplicate_execution}; "
            f"client {outcome.client}")


def verdict(row: Row) -> str:
    if row.agree:
        return "agrees"
    if row.explained:
        return f"differs, explained: {row.explained}"
    return "NO: " + "; ".join(row.differences)


def table(rows: List[Row]) -> str:
    header = ["case", "topology", REAL_COLUMN, MODEL_COLUMN, "verdict"]
    body = [[r.case, r.topology, describe(r.real), describe(r.model), verdict(r)]
            for r in rows]
    return markdown(("", header, body), with_title=False)


def details(rows: List[Row]) -> str:
    """The evidence of each row (the session cases' list, labelled by case alone)."""
    from .harness import details as listed
    return listed(rows, lambda r: r.case)


def summary(rows: List[Row]) -> str:
    agree = sum(r.agree for r in rows)
    explained = sum(r.settled and not r.agree for r in rows)
    return f"{agree} of {len(rows)} stateless cases agree" + \
        (f", {explained} differ with a written explanation" if explained else "")


def write_results(folder: Path, rows: List[Row], env: Dict[str, str], cases: List[str]) -> None:
    folder = Path(folder)
    text = (_INTRO + f"\n## Table ({summary(rows)})\n\n" + table(rows) + "\n\n## Evidence\n\n"
            + details(rows) + "\n\n## Versions\n\n"
            + "\n".join(f"- {k}: {v}" for k, v in env.items()) + "\n")
    write_json(folder / "stateless.json", {"environment": env,
                                           "rows": [r.as_dict() for r in rows]})
    write_atomic(folder / "STATELESS-RESULTS.md", text)
    write_json(folder / "manifest.json", manifest(
        "python -m simulations conformance --transport stateless",
        {"cases": cases, "versions": env}))


def load_rows(folder: Path) -> List[Row]:
    data = json.loads((Path(folder) / "stateless.json").read_text())
    return [Row.from_dict(row) for row in data["rows"]]
