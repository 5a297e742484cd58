"""Tournaments: the pure director, the tournament actor, its tables, floor and desk."""
