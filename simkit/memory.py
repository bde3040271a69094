"""How the `simkit` command asks the allocators to hand memory back.

A long run allocates each chunk's result arrays and frees them a moment later. With
their defaults glibc's malloc raises its mmap threshold after the first large free (so
later chunks land on a heap that does not shrink) and pyarrow's mimalloc keeps segments
for reuse; a 10^6-game run then creeps up by a hundred MB or more. Only the command line
sets these: the process is simkit's own there, while a notebook's is the user's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 1 << 17  # glibc's default starting value, now held fixed


def hand_memory_back() -> None:
    """Fix glibc's mmap threshold (large arrays go back to the system when freed), and put
    pyarrow on the system allocator unless the user chose one (this takes effect only if
    pyarrow is not imported yet, as in the command line's start)."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to ask
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
