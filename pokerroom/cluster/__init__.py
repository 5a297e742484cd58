"""Cluster mode: several game servers over one PostgreSQL, on NATS (docs/design/cluster.md)."""
