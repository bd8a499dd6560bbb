"""Engines, experiments and the command line that drive the formal model in `model/`.

The scripted engine replays the seed incidents (`simulations.scenarios`); `python -m simulations`
is the one command line.
"""
