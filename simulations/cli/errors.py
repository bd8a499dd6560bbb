"""UsageError: bad command-line input, as the one line the user sees (exit status 2)."""


class UsageError(Exception):
    """Bad command-line input; the message is the one line the user sees."""
