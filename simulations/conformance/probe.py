"""What the harness and the servers it starts share, with no third-party imports: the probe
endpoints a server answers outside MCP, and the harness's own error."""

#: GET <prefix><tag> -> {"stored": bool}: has the result of the call tagged <tag> been stored?
STORED_PREFIX = "/_harness/stored/"
#: GET <prefix><name> -> lets a tool call waiting on hold=<name> finish.
RELEASE_PREFIX = "/_harness/release/"


class HarnessError(RuntimeError):
    """The harness could not set a case up (a process would not start, a port would not bind,
    a requirement is missing)."""
