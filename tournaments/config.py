"""What the tournament actor needs to run one tournament: the director's settings plus its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments.director.balancing import BalanceSettings
from tournaments.director.bounties import BountyFormat
from tournaments.director.deal_flow import DealSettings
from tournaments.director.payouts import PayoutSettings
from tournaments.director.registration import Period, RegistrationSettings, TicketRefund
from tournaments.director.structure import Structure
from tournaments.director.tickets import OnCancel
from tournaments.satellite_target import SatelliteTarget


@dataclass(frozen=True, slots=True)
class OutageSettings:
    """T-18: what a restart after a crash does with a tournament that was running."""

    #: Back within this many minutes of the last stored state: the tournament resumes from
    #: it; later: it is cancelled for outage and refunded by T-18. A tournament not started
    #: whose start time passed longer ago than this is cancelled too (T-18.1).
    resume_within_minutes: float = 10.0
    #: After a resume the tables deal again this many seconds later (the level clock stands
    #: still until then), so that players can reconnect first.
    reconnect_seconds: float = 30.0

    def __post_init__(self) -> None:
        """Refuse settings that cannot work."""
        if self.resume_within_minutes < 0 or self.reconnect_seconds < 0:
            raise ValueError("outage: resume_within_minutes and reconnect_seconds are >= 0")


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """One tournament: structure, registration and money, payouts, tables and pacing."""

    structure: Structure
    registration: RegistrationSettings
    currency: str = "USD"
    payouts: PayoutSettings = field(default_factory=PayoutSettings)
    balancing: BalanceSettings = field(default_factory=BalanceSettings)
    max_seats: int = 9
    sit_and_go: bool = False  # start when `max_entries` have registered, not at a time (T-1)
    between_hands_seconds: float = 3.0
    hand_for_hand_margin: int = 1  # hand-for-hand from this many players before the money
    satellite: SatelliteTarget | None = None  # T-8, T-16: prizes are seats in this target
    name: str = ""  # what the lobby shows (the schedule entry's name); the id when empty
    #: T-14: a bounty tournament's format and the part of each buy-in that is bounty (the
    #: registration's `bounty_share_bps` is the same share); None: no bounties.
    bounty: BountyFormat | None = None
    #: T-16: what a cancellation does with tickets for this tournament (its rule).
    cancelled_tickets: OnCancel = OnCancel.RETURN
    outage: OutageSettings = field(default_factory=OutageSettings)  # T-18 after a crash
    #: T-13: whether and how the final table may make a deal (off by default).
    deals: DealSettings = field(default_factory=DealSettings)
    #: T-17: the staking escrow is paid to each seller at their result, not at the start, so
    #: that a seat instead of money gives the buyers back their money from it; None: so in a
    #: satellite (its prizes are seats), paid at the start elsewhere.
    hold_stakes_until_result: bool | None = None

    @property
    def tournament_id(self) -> str:
        """The tournament's id (the director's settings carry it)."""
        return self.registration.tournament_id


FORMATS = ("freezeout", "reentry", "rebuy")


def make_config(
    tournament_id: str,
    structure: Structure,
    *,
    buy_in: int,
    fee: int,
    starts_at: float,
    opens_at: float | None = None,
    fmt: str = "freezeout",
    late_registration_levels: int = 0,
    max_entries: int | None = None,
    guarantee: int = 0,
    sit_and_go: bool = False,
    max_seats: int = 9,
    between_hands_seconds: float = 3.0,
    name: str = "",
    outage: OutageSettings | None = None,
    bounty: BountyFormat | None = None,
    ticket_refund: TicketRefund = TicketRefund.REFUSE,
    cancelled_tickets: OnCancel = OnCancel.RETURN,
) -> TournamentConfig:
    """A config for one of the usual formats (T-4): freezeout, re-entry, or rebuy with add-on;
    with `bounty` a bounty tournament (T-14: each entry's and re-entry's buy-in carries its
    starting bounty); `ticket_refund` and `cancelled_tickets` say what unregistering and a
    cancellation do with tickets (T-3, T-16)."""
    if fmt not in FORMATS:
        raise ValueError(f"format is one of {FORMATS}, not {fmt!r}")
    reentry = rebuy = addon = Period()
    stack = structure.starting_stack
    if fmt == "reentry":
        late = max(late_registration_levels, 1)
        reentry = Period(2, 0, late, buy_in, fee, stack)
        late_registration_levels = late
    elif fmt == "rebuy":
        rebuy = Period(3, 0, 3, buy_in, fee, stack, max_stack=stack)
        addon = Period(1, 2, 3, buy_in, fee, stack)
    registration = RegistrationSettings(
        tournament_id=tournament_id,
        buy_in=buy_in,
        fee=fee,
        opens_at=starts_at - 86_400 if opens_at is None else opens_at,
        starts_at=starts_at,
        starting_stack=stack,
        late_registration_levels=late_registration_levels,
        max_entries=max_entries,
        guarantee=guarantee,
        reentry=reentry,
        rebuy=rebuy,
        addon=addon,
        ticket_refund=ticket_refund,
        bounty_share_bps=0 if bounty is None else bounty.share_bps,
    )
    return TournamentConfig(
        structure=structure,
        registration=registration,
        max_seats=max_seats,
        sit_and_go=sit_and_go,
        between_hands_seconds=between_hands_seconds,
        name=name,
        outage=outage or OutageSettings(),
        bounty=bounty,
        cancelled_tickets=cancelled_tickets,
    )
