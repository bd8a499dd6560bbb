"""The discrete-event engine: SimPy processes that schedule the model's transitions in time."""
