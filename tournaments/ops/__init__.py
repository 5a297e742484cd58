"""Running tournaments in a room: the schedule (a Service), T-18 recovery at start-up, and
simulation with bots."""
