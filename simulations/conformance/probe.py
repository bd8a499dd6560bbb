"""What the harness and the servers it starts share, with no third-party imports: the probe
endpoints a server answers outside MCP, and the harness's own error."""

#: GET <prefix><tag> -> {"stored": bool}: has the result of the call tagged <tag> been stored?
STORED_PREFIX = "/_harness/stored/"
#: GET <prefix><name> -> lets a tool call waiting on hold=<name> finish.
RELEASE_PREFIX = "/_harness/release/"
#: GET <prefix><tag> -> {"stored": n}: lets the `stepped` call tagged <tag> send its next message
#: and answers once the event store holds it (n: messages of <tag> stored so far), or 504.
STEP_PREFIX = "/_harness/step/"
#: seconds a `stepped` call waits for its next step, and a step probe for its event to be stored
STEP_LIMIT = 60.0
STORE_WAIT = 5.0


class HarnessError(RuntimeError):
    """The harness could not set a case up (a process would not start, a port would not bind,
    a requirement is missing)."""
