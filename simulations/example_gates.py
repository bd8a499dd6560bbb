"""Example gates for `--gate simulations.example_gates:NAME`: what a reviewer's own rule looks like.

A gate is `gate(request: model.ResumeRequest, view: model.ServerView) -> model.Decision`; build
decisions with `model.admit(effect)` and `model.reject(code, ...)`. See `model.view` for every
field of the view.
"""
from __future__ import annotations

from model import Code, Decision, Effect, ResumeRequest, ServerView, admit, reject
from model.view import ABOVE_HWM, AT_FLOOR, IN_BUFFER, NO_CURSOR


def gap_as_404(request: ResumeRequest, view: ServerView) -> Decision:
    """The decision boundary operators get wrong (incident B): a cursor the buffer no longer
    holds is answered as an unknown session. On a live session this is a needless re-init."""
    if not view.registry_has_session:
        return reject(Code.SESSION_NOT_FOUND, "unknown session")
    if view.cursor.position in (NO_CURSOR,):
        return admit(Effect.EMPTY, "new stream")
    if view.cursor.position in (IN_BUFFER, AT_FLOOR):
        return admit(Effect.REPLAY, "cursor in buffer")
    return reject(Code.SESSION_NOT_FOUND, "cursor not in buffer: treated as an unknown session")


def tagged_strict(request: ResumeRequest, view: ServerView) -> Decision:
    """A strict gate written against the view directly, for a deployment with tagged ids:
    liveness, provenance, generation, reachability, in that order."""
    if not view.registry_has_session:
        return reject(Code.SESSION_NOT_FOUND, "unknown session")
    cursor = view.cursor
    if cursor.position == NO_CURSOR:
        return admit(Effect.EMPTY, "new stream")
    if cursor.owner != view.session:
        return reject(Code.CURSOR_SESSION_MISMATCH, f"cursor of session {cursor.owner}")
    if view.recreates or cursor.generation != view.generation:
        return reject(Code.GENERATION_MISMATCH, "session recreated since the cursor")
    if cursor.position in (IN_BUFFER, AT_FLOOR):
        return admit(Effect.REPLAY, "replayable")
    if cursor.position == ABOVE_HWM:
        return reject(Code.CURSOR_AHEAD, "cursor ahead of the buffer")
    return reject(Code.REPLAY_GAP, "cursor below the floor",
                  resume_from=view.buffer.floor if view.buffer else None)
