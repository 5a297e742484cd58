"""A tournament's tables: the floor (levels, balancing, hand-for-hand), each table and what
clients see of it, presence and time banks."""
