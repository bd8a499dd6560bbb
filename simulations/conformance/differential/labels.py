"""How the lockstep names what a stream carries, on both sides: a tool message as
(token, msg) of the model's session work, a priming event (an id without data) as "id"."""
from __future__ import annotations

from typing import Optional, Tuple

from model.buffers import PRIMING

from ..wire import SSE


def label_of(data: str, messages: int) -> Optional[Tuple[int, int]]:
    """(token, msg) of a tool message "t<token>:<n>" / "t<token>:done" in an SSE data field."""
    label = SSE(None, data).label
    if label is None or ":" not in label:
        return None
    tag, n = label.rsplit(":", 1)
    token = int(tag.rsplit("t", 1)[1])
    return token, messages - 1 if n == "done" else int(n) - 1


def item_label(item) -> object:
    """The label of an item the model has in flight to a client."""
    return "id" if item.truth.msg == PRIMING else (item.truth.token, item.truth.msg)


def name(label) -> str:
    """(token, msg) as "t<token>:<msg>"; anything else as it is."""
    return f"t{label[0]}:{label[1]}" if isinstance(label, tuple) else str(label)
