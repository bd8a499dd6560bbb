"""The state graph of a small scope as GraphML, every counterexample's path marked.

Built only when the explorer is asked to keep a networkx graph (`explore(..., graph=True)`);
the verdicts themselves, liveness included, never need it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import networkx as nx

from .search import Exploration


def path_nodes(result: Exploration, source: int) -> List[int]:
    """Fingerprints from the initial state to `source`."""
    nodes, fp = [source], source
    while result.parents[fp] is not None:
        fp = result.parents[fp][0]
        nodes.append(fp)
    return nodes[::-1]


def _witnesses(result: Exploration) -> Dict[str, int]:
    """Property name -> the state its shortest counterexample path ends in (or leaves from)."""
    out = {name: finding.source for name, finding in result.violations.items()}
    if result.liveness is not None and result.liveness.finding is not None:
        out[result.liveness.name] = result.liveness.finding.source
    return out


def write_graphml(result: Exploration, path: Path) -> Dict[str, int]:
    """The state graph as GraphML, each counterexample's path marked on its nodes and edges."""
    graph = result.graph.copy()
    for name, source in _witnesses(result).items():
        nodes = path_nodes(result, source)
        for a, b in zip(nodes, nodes[1:]):
            graph.edges[a, b]["counterexample"] = \
                (graph.edges[a, b].get("counterexample", "") + " " + name).strip()
        for node in nodes:
            graph.nodes[node]["counterexample"] = \
                (graph.nodes[node].get("counterexample", "") + " " + name).strip()
    graph = nx.relabel_nodes(graph, {n: f"s{n & 0xFFFFFFFFFFFFFFFF:016x}" for n in graph.nodes})
    path.parent.mkdir(parents=True, exist_ok=True)
    nx.write_graphml(graph, path)
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}
