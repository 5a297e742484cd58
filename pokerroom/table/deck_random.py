"""A cryptographically secure shuffle that asks the OS for random bytes once per deck (C-15).

`secrets.SystemRandom().shuffle` draws every swap with its own `os.urandom` call: about 66
`getrandom` system calls and as many Python-level `getrandbits` calls per 52-card deck, a
noticeable part of a table's work per hand under load (docs/PERFORMANCE.md, "Issue 20
item 3"). `DeckRandom.shuffle` runs the same Fisher-Yates with the same rejection sampling on
bytes read from `os.urandom` in one call per deck (more only if the rejections use them up):
each swap's index is `int.from_bytes` of the next ceil(k/8) bytes shifted right to k bits,
redrawn while it is out of range, exactly as `SystemRandom._randbelow` does, so every
permutation stays equally likely and the bytes still come from the OS's CSPRNG, each used
once. Everything else (`randrange`, `random`, ...) is `SystemRandom`'s own.
"""

from __future__ import annotations

import secrets
from collections.abc import MutableSequence
from os import urandom
from typing import Any

#: Bytes read per deck: a 52-card shuffle uses 66 on average (51 swaps, 1 byte each,
#: about 1.3 draws a swap); more are read only when these run out.
CHUNK = 128


class DeckRandom(secrets.SystemRandom):
    """`secrets.SystemRandom` whose `shuffle` reads the OS's random bytes in one go (C-15)."""

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Shuffle `x` in place: uniform over all permutations, from `os.urandom` bytes."""
        buf = urandom(CHUNK)
        pos = 0
        for i in range(len(x) - 1, 0, -1):
            n = i + 1
            k = n.bit_length()
            size = (k + 7) // 8
            shift = size * 8 - k
            while True:
                if pos + size > len(buf):
                    buf, pos = urandom(CHUNK), 0
                j = int.from_bytes(buf[pos : pos + size]) >> shift
                pos += size
                if j < n:
                    break
            x[i], x[j] = x[j], x[i]
