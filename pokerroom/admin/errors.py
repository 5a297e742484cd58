"""Error codes of the admin endpoint, beside the player protocol's (docs/ADMIN.md).

The admin endpoint answers like the player protocol (P-1): `error` with a stable `code`; a
refused request changes nothing and writes no audit row. Format, login and money codes are the
player protocol's (`bad_frame`, `missing_field`, `bad_credentials`, `too_many_attempts`,
`insufficient_funds`, `unknown_table`, `not_seated`, ...); these are the admin's own.
"""

from __future__ import annotations

FORBIDDEN = "forbidden"  # the staff member's role is below the command's (details: required)
STAFF_DISABLED = "staff_disabled"  # the staff account was disabled; the connection closes
WRONG_PORT = "wrong_port"  # a player message on the admin port (players use the room's port)
UNKNOWN_PLAYER = "unknown_player"  # no player has this name
NO_CHANGE = "no_change"  # the target is already so (paused, banned, muted ...): nothing done
UNKNOWN_APPROVAL = "unknown_approval"  # no approval has this id
APPROVAL_NOT_PENDING = "approval_not_pending"  # the approval was already carried out
OWN_APPROVAL = "own_approval"  # an admin cannot approve a change they asked for
TOURNAMENT_EXISTS = "tournament_exists"  # a tournament with this id is open or stored already
UNKNOWN_TEMPLATE = "unknown_template"  # no blind-structure template has this name
REFUNDS_STARTED = "refunds_started"  # the refund job planned this tournament's refunds
JOB_RUNNING = "job_running"  # a run of the job holds its lock now: try again after it
UNKNOWN_JOB = "unknown_job"  # no scheduled job has this name
CONFIG_ERROR = "config_error"  # the room's configuration file cannot be read or is invalid
APPROVAL_EXPIRED = "approval_expired"  # pending longer than approval_expire_hours
REQUESTER_DISABLED = "requester_disabled"  # the admin who asked is disabled or not an admin
UNKNOWN_CURRENCY = "unknown_currency"  # a currency the room does not use (no wallet opened)
ABOVE_WITHDRAWAL_LIMIT = "above_withdrawal_limit"  # PB-11: one release above its limit
ABOVE_MONTHLY_LIMIT = "above_monthly_limit"  # PB-11: the month's releases would pass the limit
#: A cluster runs the tables of room.toml as its nodes read it at start: a table added to the
#: file since is opened by restarting the nodes one by one (drain each first), not by one node.
CLUSTER_RESTART_NEEDED = "cluster_restart_needed"

ADMIN_CODES = (
    FORBIDDEN,
    STAFF_DISABLED,
    WRONG_PORT,
    UNKNOWN_PLAYER,
    NO_CHANGE,
    UNKNOWN_APPROVAL,
    APPROVAL_NOT_PENDING,
    OWN_APPROVAL,
    TOURNAMENT_EXISTS,
    UNKNOWN_TEMPLATE,
    REFUNDS_STARTED,
    JOB_RUNNING,
    UNKNOWN_JOB,
    CONFIG_ERROR,
    APPROVAL_EXPIRED,
    REQUESTER_DISABLED,
    UNKNOWN_CURRENCY,
    ABOVE_WITHDRAWAL_LIMIT,
    ABOVE_MONTHLY_LIMIT,
    CLUSTER_RESTART_NEEDED,
)
