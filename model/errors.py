"""Errors the model raises: each names what is wrong so a CLI can print it in one line."""
from typing import Tuple


class ModelError(Exception):
    """Base class for errors raised by the formal model."""


class ConfigError(ModelError, ValueError):
    """A configuration value is unknown, of the wrong type or out of range.

    `key` names the offending configuration key.
    """

    def __init__(self, key: str, problem: str):
        self.key = key
        self.problem = problem
        super().__init__(f"config key {key!r}: {problem}")

    def __reduce__(self) -> Tuple[type, Tuple[str, str]]:
        # picklable, so an error raised in a worker process reaches the parent intact
        return (type(self), (self.key, self.problem))


class GateError(ModelError):
    """A resumption gate raised or returned something that is not a Decision."""

    def __init__(self, gate_name: str, problem: str):
        self.gate_name = gate_name
        self.problem = problem
        super().__init__(f"gate {gate_name!r}: {problem}")

    def __reduce__(self) -> Tuple[type, Tuple[str, str]]:
        return (type(self), (self.gate_name, self.problem))


class ActionNotEnabled(ModelError):
    """An action was applied in a state where it is not enabled."""
