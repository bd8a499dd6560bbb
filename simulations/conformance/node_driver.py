"""The MCP TypeScript SDK's own client (ts/client.mjs under node), driven like the Python SDK's
client in `sdk_driver`: the same hooks (hold the first resumption until the harness has done
something to the servers; vet the session after initialize) and the same `ClientRun` back.

The client process talks to the harness over its stdin and stdout, one JSON object per line;
it ends itself after its budget, and the harness kills it if it does not.
"""
from __future__ import annotations

import json
from typing import Awaitable, Callable, List, Optional

import anyio
from anyio.streams.text import TextReceiveStream

from .processes import TS_DIR
from .sdk_driver import ClientRun, Exchange

CLIENT = TS_DIR / "client.mjs"
GRACE = 15.0          # seconds past its budget before the harness kills the client


async def run_node_client(url: str, tag: str, count: int, close_after: int,
                          before_resume: Optional[Callable[[], Awaitable[None]]] = None,
                          max_resumes: int = 6, budget: float = 20.0,
                          after_initialize: Optional[Callable[[List[Exchange]],
                                                              Awaitable[bool]]] = None
                          ) -> ClientRun:
    """Run the TypeScript SDK client on `stream(tag, count, close_after)`; see sdk_driver."""
    argv = ["node", str(CLIENT), "--url", url, "--tag", tag, "--count", str(count),
            "--close-after", str(close_after), "--max-resumes", str(max_resumes),
            "--budget-ms", str(int(budget * 1000))]
    argv += ["--hold"] if before_resume is not None else []
    argv += ["--vet"] if after_initialize is not None else []
    result: Optional[dict] = None
    process = await anyio.open_process(argv, start_new_session=True)
    try:
        with anyio.move_on_after(budget + GRACE):
            buffer = ""
            assert process.stdout is not None and process.stdin is not None
            async for chunk in TextReceiveStream(process.stdout):
                buffer += chunk
                while "\n" in buffer:
                    line, buffer = buffer.split("\n", 1)
                    message = json.loads(line) if line.strip() else {}
                    if "hold" in message and before_resume is not None:
                        await before_resume()
                        await process.stdin.send(b"go\n")
                    elif "vet" in message and after_initialize is not None:
                        ok = await after_initialize([Exchange(**x) for x in message["vet"]])
                        await process.stdin.send(b"go\n" if ok else b"veto\n")
                    elif "outcome" in message:
                        result = message
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.wait()
    if result is None:
        return ClientRun("stalled", f"the TypeScript client gave no result within {budget:.0f} s",
                         [], [])
    return ClientRun(result["outcome"], result["detail"], result["labels"],
                     [Exchange(**x) for x in result["exchanges"]])
