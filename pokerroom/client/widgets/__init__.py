"""The client's windows and widgets, one per module."""
