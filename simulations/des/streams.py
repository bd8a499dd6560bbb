"""The random streams of one replication: independent generators keyed by (kind, entity).

One `SeedSequence` per replication; each stream is derived from it by a key naming the component
and the entity (`("drop", client ident)`, `("crash", instance)`, ...), so the same replication
seed gives every policy the same arrivals, calls, drops and restarts (common random numbers),
however differently the policies make the run unfold.

Every kind but the load balancer's draws only exponential gaps, through `Exponentials`: numpy
fills a batch from the generator value by value, each the standard variate times the mean, so
a batch gives exactly the values one call per gap would, in the same order, at a fraction of
the cost (a numpy call costs far more than the value it returns).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

from .seeding import StreamSeeds, pcg64

STREAM_KINDS = ("arrivals", "work", "drop", "restart", "crash", "lb")
#: the first batch of a stream's gaps, doubled at each refill up to LARGEST_BATCH (a client
#: that leaves after a gap or two does not pay for a large batch)
FIRST_BATCH = 4
LARGEST_BATCH = 64


class Exponentials:
    """Exponential gaps from one generator: `gap(mean)` is `generator.exponential(mean)`,
    value for value. Nothing else may draw from the generator."""

    def __init__(self, generator: np.random.Generator):
        self.generator = generator
        self.batch: List[float] = []
        self.taken = 0
        self.size = FIRST_BATCH

    def gap(self, mean: float) -> float:
        if self.taken == len(self.batch):
            self.batch = self.generator.standard_exponential(self.size).tolist()
            self.taken = 0
            self.size = min(2 * self.size, LARGEST_BATCH)
        value: float = self.batch[self.taken]
        self.taken += 1
        return mean * value


#: True: stream seeds are worked out by `StreamSeeds` (the same words at a sixth of the cost);
#: False: a numpy SeedSequence per stream (the definition; tests compare the two). A module
#: attribute read for every stream, so switching it works for the compiled DES too.
SEEDS_WORKED_OUT = True


class Streams:
    """Independent random generators keyed by (kind, entity), derived from one SeedSequence:
    `exponentials` for the kinds that draw gaps, `rng` for the load balancer's choices.

    Stream (kind, key) is `PCG64(SeedSequence(seed.entropy, spawn_key=seed.spawn_key +
    (STREAM_KINDS.index(kind), key)))`; with an int entropy (every seed a config gives) its
    seed words are worked out by `StreamSeeds`, the same words at a sixth of the cost."""

    def __init__(self, seed: np.random.SeedSequence):
        self.seed = seed
        entropy = seed.entropy
        self._seeds: Optional[StreamSeeds] = StreamSeeds(int(entropy), seed.spawn_key) \
            if isinstance(entropy, (int, np.integer)) else None
        self._generators: Dict[Tuple[str, int], np.random.Generator] = {}
        self._gaps: Dict[Tuple[str, int], Exponentials] = {}

    def _generator(self, kind: str, key: int) -> np.random.Generator:
        found = self._generators.get((kind, key))
        if found is None:
            index = STREAM_KINDS.index(kind)
            if self._seeds is not None and SEEDS_WORKED_OUT:
                found = pcg64(self._seeds.state(index, key))
            else:
                found = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
                    self.seed.entropy, spawn_key=self.seed.spawn_key + (index, key))))
            self._generators[(kind, key)] = found
        return found

    def rng(self, kind: str, key: int = 0) -> np.random.Generator:
        """The generator of stream (kind, key), for draws other than gaps."""
        if (kind, key) in self._gaps:
            raise ValueError(f"stream {kind!r} {key} draws its gaps through Exponentials")
        return self._generator(kind, key)

    def exponentials(self, kind: str, key: int = 0) -> Exponentials:
        """The gaps of stream (kind, key); its generator then serves nothing else."""
        found = self._gaps.get((kind, key))
        if found is None:
            found = self._gaps[(kind, key)] = Exponentials(self._generator(kind, key))
        return found

    def forget(self, kind: str, key: int) -> None:
        self._generators.pop((kind, key), None)
        self._gaps.pop((kind, key), None)
