"""The room server: service tree, lobby, player accounts, the TCP listener."""
