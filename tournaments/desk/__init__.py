"""What the protocol sees of tournaments: the desk, the lobby's view, table frames, staking
and deal requests."""
