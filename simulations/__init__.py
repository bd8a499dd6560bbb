"""Engines, experiments and the command line that drive the formal model in `model/`.

The scripted engine replays the seed incidents (`simulations.scenarios`); `python -m simulations`
is the one command line.
"""
import os

# numpy's OpenBLAS starts a thread per core when numpy is imported, and each spins for a while
# waiting for work. Nothing here does linear algebra, so on a 2-core machine the spinning only
# takes CPU from the engines: 0.24 CPU-seconds of the 1.5 an `explore` run took. Set before
# anything imports numpy (every process of this package imports this first; so does the test
# set-up), inherited by the processes it starts; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
