"""The README's generated blocks: the property table (from the registry) and what the committed
verification matrix says about each gate (from its cells). `tests/test_claims.py` regenerates
both and compares them with the README, so no sentence there says more than was verified.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Dict, List, Sequence

from model.properties import BY_NAME, LIVENESS, PROPERTIES, SAFETY

from ..render import markdown
from .exceptions import EXCEPTIONS
from .matrix import JUDGED, failing, unknown


def properties_markdown() -> str:
    """Every safety and liveness property of the registry: label, name, judged, counted when."""
    rows = [[p.label, f"`{p.name}`", p.kind, "yes" if p.judged else "no", p.summary]
            for p in PROPERTIES if p.kind in (SAFETY, LIVENESS)]
    return markdown(("", ["label", "property", "kind", "judged", "counted when"], rows),
                    with_title=False)


def _excused_names(cell: dict) -> List[str]:
    names = set()
    for name in JUDGED:
        if cell["properties"][name]["excused_by"]:
            names |= set(cell["properties"][name]["excused_by"].split(", "))
    return sorted(names)


def summary_markdown(cells: Sequence[dict], timings: dict) -> str:
    """Per gate, in how many deployments every judged property holds (complete search), holds
    but for named exceptions, fails, or is unknown; then one sentence per gate."""
    gates = list(dict.fromkeys(c["policy"] for c in cells))
    header = ["gate", "deployments", "all hold", "hold but for a named exception", "fail",
              "unknown", "failing deployments by property"]
    rows: List[List[str]] = []
    lines: List[str] = []
    for gate in gates:
        mine = [c for c in cells if c["policy"] == gate]
        fails = [c for c in mine if failing(c)]
        unsure = [c for c in mine if not failing(c) and unknown(c)]
        excused = [c for c in mine if not failing(c) and not unknown(c) and _excused_names(c)]
        clean = len(mine) - len(fails) - len(unsure) - len(excused)
        by_prop = Counter(n for c in fails for n in failing(c))
        text = ", ".join(f"{BY_NAME[n].label} {by_prop[n]}" for n in JUDGED if by_prop[n]) or "-"
        rows.append([f"`{gate}`", str(len(mine)), str(clean), str(len(excused)),
                     str(len(fails)), str(len(unsure)), text])
        if gate == "strict":
            by_exception: Dict[str, int] = Counter(n for c in excused
                                                   for n in _excused_names(c))
            never = sum(1 for c in mine if c["sometimes"].get("admitted_resumption") is False)
            lines.append(
                f"`strict` holds every judged property (the safety properties and stall as "
                f"liveness) in {clean} of {len(mine)} deployments; in {len(excused)} more its "
                "only violations are ones a named exception excuses ("
                + ", ".join(f"{name}: {n}" for name, n in sorted(by_exception.items()))
                + f"); it fails in {len(fails)} and is unknown in {len(unsure)}. It never admits "
                f"a resumption with a cursor in {never} of them: there the ids prove no issuer "
                "(per-session or per-process counters, or a store whose streams name no "
                "session), so it refuses every cursor and the client re-initializes.")
    known = {e.name for e in EXCEPTIONS}
    states = sum(c["states"] for c in cells)
    cpu = timings.get("explore_seconds_of_all_cells", 0)
    workers = timings.get("workers") or 1
    head = (f"{len(cells)} cells ({len(gates)} rows over the space's deployments; "
            f"deployments a row explores in the same scope are one cell), {states:,} states, "
            f"{cpu / 60:,.0f} CPU-minutes of "
            f"exploration in all (about {cpu / 60 / workers:,.0f} min "
            f"on {workers} workers; named exceptions: "
            f"{', '.join(sorted(known))}).")
    table = markdown(("", header, rows), with_title=False)
    return "\n".join([head, "", table, ""] + lines)


def fill(text: str, block: str, content: str) -> str:
    """`text` with the generated block between its markers replaced by `content`."""
    pattern = re.compile(rf"(<!-- {block}:start -->\n).*?(<!-- {block}:end -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no <!-- {block}:start/end --> markers")
    return pattern.sub(lambda m: m.group(1) + content + "\n" + m.group(2), text)


def block(text: str, name: str) -> str:
    """The generated content currently between a block's markers."""
    match = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)
    return match.group(1).rstrip("\n") if match else ""
