"""Random action sequences over a real fleet, in lockstep with the model (Hypothesis stateful).

Each Hypothesis example is one sequence: fresh sessions (their tool calls carry the sequence's
own request id, so every sequence starts a fresh stream even in a store keyed by request id) on
the same running fleet; every instance is up when a sequence starts. A disagreement is raised
as a `Disagreement` of its kind, so Hypothesis shrinks each kind to its own minimal sequence.
"""
from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, List, Optional

from model.actions import Stop

from ..processes import Processes
from .disagreement import Disagreement
from .lockstep import VOCABULARY as KIND_ORDER
from .lockstep import Lockstep, deployment
from .scope import SCOPE, STOPS_PER_SEQUENCE


class Run:
    """The counters and findings of one differential run."""

    def __init__(self) -> None:
        self.sequences = 0
        self.steps = 0
        self.failures: List[Disagreement] = []
        self.actions: Counter = Counter()      # steps by action kind
        self.answers: Counter = Counter()      # resumptions by the model's answer


def run_differential(server: str, examples: int, seed: int, scope: Optional[Dict] = None,
                     workdir: Optional[Path] = None,
                     progress: Optional[Callable[[int, int], None]] = None) -> Dict:
    """Run `examples` sequences against a fleet of `server` (sdk, guard or ts); the summary:
    sequences and steps run (shrinking included), disagreements with their minimal sequences."""
    import anyio.from_thread
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import seed as use_seed
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

    from .streams import StreamPool

    scope = {**SCOPE, **(scope or {})}
    config, policy = deployment(server, scope["instances"], scope["clients"],
                                scope["messages"], scope["capacity"])
    run = Run()
    own = workdir is None
    root = Path(tempfile.mkdtemp(prefix="mcp-differential-")) if own else Path(workdir)
    started = time.monotonic()
    with Processes(root) as procs, anyio.from_thread.start_blocking_portal() as portal:
        fleet = [procs.server(f"i{i}", capacity=scope["capacity"], kind=server)
                 for i in range(scope["instances"])]
        pool = StreamPool(portal)

        class Sequence(RuleBasedStateMachine):
            def __init__(self) -> None:
                super().__init__()
                run.sequences += 1
                for instance in fleet:
                    if instance.process is None or not instance.process.alive():
                        instance.start()
                self.lock = Lockstep(fleet, pool, server, config, policy, run.sequences)
                self.stops = 0

            @rule(data=st.data())
            def act(self, data) -> None:
                options = [a for a in self.lock.candidates()
                           if type(a) is not Stop or self.stops < STOPS_PER_SEQUENCE]
                if not options:
                    return
                # the kind first, then one of its actions: a kind enabled for every client in
                # every state (a client restart) would otherwise crowd out the rare ones.
                # Hypothesis favours the first choice: progress (a delivery) comes first.
                present = {type(a) for a in options}
                kind = data.draw(st.sampled_from([k for k in KIND_ORDER if k in present]),
                                 label="kind")
                action = data.draw(st.sampled_from([a for a in options if type(a) is kind]),
                                   label="action")
                self.stops += type(action) is Stop
                run.steps += 1
                run.actions[type(action).__name__] += 1
                try:
                    self.lock.step(action)
                except Disagreement as exc:
                    run.failures.append(exc)
                    raise

            def teardown(self) -> None:
                try:
                    self.lock.finish()
                except Disagreement as exc:
                    run.failures.append(exc)
                    raise
                finally:
                    run.answers.update(self.lock.decisions)
                    self.lock.close()
                    if progress is not None:
                        progress(run.sequences, run.steps)

        machine = use_seed(seed)(Sequence)
        options = settings(max_examples=examples, stateful_step_count=scope["steps"],
                           deadline=None, database=None, report_multiple_bugs=True,
                           suppress_health_check=list(HealthCheck),
                           phases=(Phase.generate, Phase.shrink), print_blob=False)
        found: List[BaseException] = []
        try:
            run_state_machine_as_test(machine, settings=options)
        except BaseException as exc:     # one disagreement, or a group of distinct ones
            if isinstance(exc, KeyboardInterrupt):
                raise
            found = list(exc.exceptions) if isinstance(exc, BaseExceptionGroup) else [exc]
        finally:
            pool.close()
    return {
        "server": server, "policy": policy, "seed": seed, "examples": examples,
        "scope": scope, "sequences": run.sequences, "steps": run.steps,
        "actions": dict(sorted(run.actions.items())),
        "answers": dict(run.answers.most_common()),
        "seconds": round(time.monotonic() - started, 1),
        "disagreements": [finding(exc) for exc in found],
        "model_config": config.as_dict(),
    }


def finding(exc: BaseException) -> Dict:
    """A disagreement (or a harness failure) as the summary reports it."""
    if isinstance(exc, Disagreement):
        return {"kind": exc.kind, "what": exc.what, "sequence": list(exc.sequence)}
    return {"kind": "harness_error", "what": f"{type(exc).__name__}: {exc}", "sequence": []}


__all__ = ["run_differential", "SCOPE"]
