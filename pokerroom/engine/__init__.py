"""The pure hand engine: cards, variants, the hand state machine, pots, showdown, PHH.

Nothing here does I/O, reads a clock or uses the global random generator
(docs/ARCHITECTURE.md rule 1): randomness is passed in, events come out.
"""

from pokerroom.engine.config import HandConfig
from pokerroom.engine.errors import EngineError
from pokerroom.engine.hand import Hand, Phase
from pokerroom.engine.variants import VARIANTS, Variant

__all__ = ["VARIANTS", "EngineError", "Hand", "HandConfig", "Phase", "Variant"]
