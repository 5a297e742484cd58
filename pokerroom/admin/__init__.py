"""Staff administration: staff accounts and roles, the admin endpoint, audited staff actions.

`roles` (the four roles), `schema` (staff, audit, approvals, bans, table controls), `staff`
(offline staff accounts), `audit` (the audit log), `commands` (the typed command registry),
`handlers` (the commands), `session` and `service` (the admin listener), `client` (the CLI's
side of the wire). The protocol is docs/ADMIN.md.
"""
