"""An exploration as JSON (`explore --json`, the matrix's cells) and as the text `explore`
prints: verdicts, sometimes coverage, costs, per-action coverage and the shortest traces."""
from __future__ import annotations

from model.properties import BY_NAME, LIVENESS

from .scope import Scope
from .search import HOLDS, UNKNOWN, VIOLATED, Exploration, Verdict, property_kind
from .trace import narrate_trace, trace_json


def verdict_json(scope: Scope, policy, verdict: Verdict, traces: bool = True) -> dict:
    """One property's verdict as JSON: verdict, holds (None when unknown), the shortest trace
    (its length, and its steps when `traces`), the first trace length per cause, and why a
    verdict is unknown."""
    finding = verdict.finding
    out = {"verdict": verdict.verdict, "kind": property_kind(verdict.name),
           "holds": {HOLDS: True, VIOLATED: False}.get(verdict.verdict),
           "trace_length": verdict.trace_length,
           "causes": {cause: len(f.actions) for cause, f in verdict.causes.items()},
           "why": verdict.why or None}
    if traces:
        out["trace"] = trace_json(scope, policy, finding.actions) if finding else []
    return out


def exploration_json(result: Exploration, policy, files=()) -> dict:
    scope = result.scope
    return {
        "policy": result.gate, "scope": scope.as_dict(), "states": result.states,
        "transitions": result.transitions, "depth": result.depth,
        "seconds": round(result.seconds, 3), "complete": result.complete,
        "incomplete": result.incomplete, "symmetry": result.symmetry,
        "subsumption": result.subsumption, "subsumed": result.subsumed,
        "properties": {name: verdict_json(scope, policy, v)
                       for name, v in result.verdicts().items()},
        "sometimes": result.sometimes,
        "costs": {name: len(f.actions) for name, f in sorted(result.costs.items())},
        "coverage": dict(sorted(result.coverage.items())), "files": list(files),
        "gate_error": None if result.gate_error is None else {
            "error": result.gate_error.detail,
            "trace": trace_json(scope, policy, result.gate_error.actions[:-1])
            + [{"step": len(result.gate_error.actions),
                "action": repr(result.gate_error.actions[-1]), "error": True}]},
    }


def _verdict_line(verdict: Verdict) -> str:
    if verdict.verdict == HOLDS:
        return "holds"
    if verdict.verdict == UNKNOWN:
        return f"UNKNOWN ({verdict.why})"
    causes = ", ".join(f"{c}: {len(f.actions)}" for c, f in verdict.causes.items())
    return (f"VIOLATED (shortest trace: {verdict.trace_length} steps; "
            f"{verdict.finding.detail}; by cause, steps: {causes})")


def exploration_text(result: Exploration, policy, files=()) -> str:
    scope = result.scope
    out = [f"explored {result.states:,} distinct states, {result.transitions:,} transitions, "
           f"depth {result.depth}, in {result.seconds:.1f} CPU-s under {result.gate}"]
    if result.subsumed:
        out.append(f"  ({result.subsumed:,} more states skipped: each had a reached state "
                   "with the same model state and fault budgets at least as large)")
    if not result.complete:
        out.append("INCOMPLETE: " + "; ".join(result.incomplete) + ": a property without a "
                   "counterexample is unknown, not holding")
    verdicts = result.verdicts()
    for name, verdict in verdicts.items():
        judged = "" if BY_NAME[name].judged else " (diagnostic)"
        out.append(f"  {name + judged:34s} {_verdict_line(verdict)}")
    out.append("sometimes: " + ", ".join(
        f"{k}={'yes' if v else ('n/a' if v is None else 'NO')}" for k, v in
        result.sometimes.items()))
    vacuous = result.vacuous()
    if vacuous:
        out.append(f"  the scope never reaches: {', '.join(vacuous)} (verdicts say nothing "
                   "about them)")
    out.append("costs reachable (shortest trace): " + (", ".join(
        f"{k}={len(f.actions)}" for k, f in sorted(result.costs.items())) or "none"))
    out.append("coverage: " + ", ".join(f"{k}={v}" for k, v in sorted(result.coverage.items())))
    if result.gate_error is not None:
        out.append(f"\nGATE ERROR after {len(result.gate_error.actions) - 1} steps: "
                   f"{result.gate_error.detail}")
        out.append(narrate_trace(scope, policy, result.gate_error.actions[:-1]))
    for name, verdict in verdicts.items():
        if verdict.finding is None:
            continue
        what = "a client waits forever: shortest path into a bottom component of the fair " \
            "graph" if BY_NAME[name].kind == LIVENESS else f"shortest trace violating {name}"
        out.append(f"\n# {what}")
        out.append(narrate_trace(scope, policy, verdict.finding.actions))
    out.extend(f"wrote {f}" for f in files)
    return "\n".join(out)
