"""The default scope of a differential run (no third-party imports: the CLI reads it)."""

#: two instances (the harness routes every request itself, like a random load balancer), two
#: clients, one call of three notifications and a result per session, four events kept per stream
SCOPE = {"instances": 2, "clients": 2, "messages": 4, "capacity": 4, "steps": 20}
#: an instance is stopped at most this often per sequence (a restart costs a process start)
STOPS_PER_SEQUENCE = 1
