"""The state graph of a small scope: liveness by strongly connected components, and GraphML.

Liveness ("eventually every waiting client gets its messages"): in the condensation of the
state graph, a bottom strongly connected component (one the system can never leave) that
contains a state where a client is waiting is a run in which that client waits forever: the
stall of DESIGN §4 seen as liveness, whatever the policy answered on the way.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional

import networkx as nx

from .search import Exploration, _path


def forever_waiting(result: Exploration) -> Optional[List]:
    """The shortest path to a state in a bottom SCC where some client waits forever, or None."""
    graph = result.graph
    condensed = nx.condensation(graph)
    best = None
    for component in condensed.nodes:
        if condensed.out_degree(component):
            continue
        members = condensed.nodes[component]["members"]
        stuck = [n for n in members if graph.nodes[n].get("waiting")]
        if stuck:
            node = min(stuck, key=lambda n: graph.nodes[n]["depth"])
            if best is None or graph.nodes[node]["depth"] < graph.nodes[best]["depth"]:
                best = node
    return None if best is None else _path(result.parents, best)


def path_nodes(result: Exploration, actions_source: int) -> List[int]:
    """Fingerprints from the initial state to `actions_source`."""
    nodes, fp = [actions_source], actions_source
    while result.parents[fp] is not None:
        fp = result.parents[fp][0]
        nodes.append(fp)
    return nodes[::-1]


def write_graphml(result: Exploration, path: Path) -> Dict[str, int]:
    """The state graph as GraphML, each counterexample's path marked on its nodes and edges."""
    graph = result.graph.copy()
    for name, finding in result.violations.items():
        nodes = path_nodes(result, finding.source)
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
