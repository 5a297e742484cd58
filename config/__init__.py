"""The room's default configuration, shipped inside the package as `pokerroom.defaults`.

This folder is the top-level `config/` of the checkout; pyproject.toml maps it to the package
`pokerroom.defaults` so that a built wheel carries `room.toml`, the tournament structures and the
default schedule (read through `pokerroom.resources`).
"""
