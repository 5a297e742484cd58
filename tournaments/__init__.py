"""Tournament director (pure decisions) and its actor; built by a later issue."""
