"""Run the cases against real servers and put the model's prediction beside what happened.

`run_all` needs the `conformance` extra and nginx; `predictions` needs only the model. A row
agrees when every field of the Outcome matches; a case the harness could not set up is a row
with the error, never a skipped one.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional

from ..render import markdown
from .cases import CASES, Case
from .outcome import Outcome
from .predict import DEPLOYMENTS, predict

SERVERS = tuple(DEPLOYMENTS)       # "sdk", "guard" (the Python SDK), "ts" (the TypeScript SDK)
SERVER_TITLES = {"sdk": "MCP Python SDK + bounded example-style store (model: sdk)",
                 "guard": "MCP Python SDK behind StrictResumptionGuard (model: strict)",
                 "ts": "MCP TypeScript SDK + its example in-memory store, bounded (model: sdk)"}


class Row(NamedTuple):
    case: str
    server: str
    driver: str
    topology: str
    model: Outcome
    real: Optional[Outcome]
    agree: bool
    differences: List[str]
    evidence: str
    note: str
    seconds: float

    @staticmethod
    def from_dict(data: Dict) -> "Row":
        """A row as `as_dict` wrote it (conformance.json)."""
        fields = dict(data)
        fields["model"] = Outcome(**fields["model"])
        fields["real"] = Outcome(**fields["real"]) if fields["real"] is not None else None
        return Row(**fields)

    def as_dict(self) -> Dict[str, object]:
        out = dict(self._asdict())
        out["model"] = self.model.as_dict()
        out["real"] = self.real.as_dict() if self.real is not None else None
        return out


def missing_requirements(servers: Iterable[str] = ()) -> List[str]:
    """What the harness needs (for `servers`) and this machine lacks, one line each."""
    problems = []
    if "ts" in servers:
        from .processes import missing_node
        problem = missing_node()
        if problem is not None:
            problems.append(problem)
    for module in ("mcp", "uvicorn", "httpx"):
        try:
            __import__(module)
        except ImportError:
            problems.append(f"python package {module!r} is missing: pip install -e "
                            "'.[conformance]'")
    from .nginx import nginx_binary
    try:
        nginx_binary()
    except RuntimeError as exc:
        problems.append(str(exc))
    return problems


def predictions(cases: Iterable[str], servers: Iterable[str]) -> List[Dict[str, object]]:
    return [{"case": name, "server": server, "model": predict(CASES[name], server).as_dict()}
            for name in cases for server in servers]


def run_case(case: Case, server: str, workdir: Path) -> Row:
    from .drills import DRILLS, Env
    from .probe import HarnessError
    from .processes import Processes
    model = predict(case, server)
    started = time.monotonic()
    real, evidence = None, ""
    with Processes(workdir / f"{case.name}-{server}") as procs:
        try:
            observed = DRILLS[case.name](Env(procs, kind=server))
            real, evidence = observed.outcome, observed.evidence
        except HarnessError as exc:
            evidence = f"harness error: {exc}"
        except Exception as exc:   # a failed case is a row that says so; the others still run
            evidence = f"harness error: {type(exc).__name__}: {exc}"
    differences = model.differences(real) if real is not None else ["no real outcome"]
    return Row(case.name, server, case.driver, case.topology, model, real, not differences,
               differences, evidence, case.note, round(time.monotonic() - started, 2))


def run_all(cases: Iterable[str], servers: Iterable[str], workdir: Optional[Path] = None,
            progress: Optional[Callable[[Row], None]] = None) -> List[Row]:
    """Every (case, server) pair, in order; logs of every process under `workdir`."""
    own = workdir is None
    root = Path(tempfile.mkdtemp(prefix="mcp-conformance-")) if own else Path(workdir)
    rows = []
    try:
        for name in cases:
            for server in servers:
                row = run_case(CASES[name], server, root)
                rows.append(row)
                if progress is not None:
                    progress(row)
    finally:
        if own and all(r.agree for r in rows):
            shutil.rmtree(root, ignore_errors=True)
    return rows


def environment() -> Dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("mcp", "uvicorn", "httpx", "httpx2", "starlette", "sse-starlette"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    try:
        from .nginx import nginx_binary
        out = subprocess.run([nginx_binary(), "-v"], capture_output=True, text=True, timeout=10)
        versions["nginx"] = (out.stderr or out.stdout).strip().split("/")[-1]
    except (RuntimeError, OSError, subprocess.SubprocessError):
        versions["nginx"] = "not installed"
    return versions


def describe(outcome: Optional[Outcome]) -> str:
    """An outcome in one table cell: "409 replay_gap / rejected, client gave_up"."""
    if outcome is None:
        return "-"
    client = "" if outcome.client == "-" else f", client {outcome.client}"
    return f"{outcome.status} {outcome.code} / {outcome.stream}{client}"


def table(rows: List[Row]) -> str:
    """The model-vs-reality table as Markdown."""
    header = ["case", "server", "driver / topology", "model predicts", "real system did", "agree"]
    return markdown(("", header, [[r.case, r.server, f"{r.driver} / {r.topology}",
                                   describe(r.model), describe(r.real),
                                   "yes" if r.agree else "NO"] for r in rows]),
                    with_title=False)


def details(rows: List[Row]) -> str:
    out = []
    for r in rows:
        out.append(f"- **{r.case} / {r.server}** ({r.seconds:.1f} s): {r.evidence}")
        if r.differences and r.real is not None:
            out.append(f"  - differs: {'; '.join(r.differences)}")
        if r.note:
            out.append(f"  - note: {r.note}")
    return "\n".join(out)
