"""Hypothesis strategies for the model's inputs: configurations, views and requests."""
from hypothesis import strategies as st

from model import SystemConfig
from model.config import (
    ATTACHED_STREAM_REACTIONS,
    EVENT_ID_SCHEMES,
    KEYINGS,
    LB_KINDS,
    PLACEMENTS,
)
from model.protocol import ResumeRequest
from model.view import NO_CURSOR, POSITIONS, BufferView, CursorView, ServerView

SESSION = 1


def configs(max_instances: int = 2, max_clients: int = 2):
    return st.builds(
        SystemConfig,
        instances=st.integers(1, max_instances), clients=st.integers(1, max_clients),
        messages_per_session=st.integers(1, 4), messages_per_call=st.integers(1, 3),
        store=st.sampled_from(PLACEMENTS), buffer=st.sampled_from(PLACEMENTS),
        buffer_keying=st.sampled_from(KEYINGS), buffer_capacity=st.integers(1, 4),
        event_ids=st.sampled_from(EVENT_ID_SCHEMES), lb=st.sampled_from(LB_KINDS),
        on_404=st.sampled_from(["reinit", "fail"]), on_409=st.sampled_from(["reinit", "fail"]),
        client_dedupe=st.booleans(), priming=st.booleans(),
        priming_on_resume=st.booleans(),
        on_attached_stream=st.sampled_from(ATTACHED_STREAM_REACTIONS))


@st.composite
def views(draw):
    """Arbitrary, internally consistent views of a request for session SESSION."""
    known = draw(st.booleans())
    held = known and draw(st.booleans())
    recreates = known and not held and draw(st.booleans())
    generation = draw(st.integers(1, 3)) if known else None
    wires = tuple(draw(st.lists(st.integers(1, 20), max_size=4, unique=True)))
    buffer = draw(st.one_of(st.none(), st.builds(BufferView, st.just(tuple(sorted(wires))),
                                                 st.one_of(st.none(), st.integers(0, 5)))))
    position = draw(st.sampled_from(POSITIONS))
    wire = None if position == NO_CURSOR else draw(st.integers(0, 25))
    owner = None if wire is None else draw(st.one_of(st.none(), st.just(SESSION),
                                                     st.integers(2, 3)))
    cursor_generation = None if owner is None else draw(st.integers(1, 3))
    found = wire is not None and draw(st.booleans())
    cursor = CursorView(wire, owner, cursor_generation, found, position)
    view = ServerView(0, 1, SESSION, known, held, generation, recreates, buffer, cursor)
    return ResumeRequest(SESSION, wire), view


def sample_request_view():
    """One fixed, live, replayable request and view (for tests that need any valid input)."""
    cursor = CursorView(3, SESSION, 1, True, "in_buffer")
    view = ServerView(0, 1, SESSION, True, True, 1, False, BufferView((2, 3, 4), 1), cursor)
    return ResumeRequest(SESSION, 3), view
