"""The Alembic migrations, shipped inside the package as `pokerroom.migrations`.

pyproject.toml maps this top-level folder to the package `pokerroom.migrations` so that a built
wheel can create and upgrade databases (read through `pokerroom.resources`).
"""
