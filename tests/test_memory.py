"""The command line puts pyarrow on the system allocator (memory freed goes back), unless
the user chose another; checked in fresh interpreters, as pyarrow reads it at import."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
from simkit.memory import hand_memory_back
hand_memory_back()
import pyarrow
print(pyarrow.default_memory_pool().backend_name)
"""


@pytest.mark.parametrize("chosen, expected", [(None, "system"), ("mimalloc", "mimalloc")])
def test_the_command_line_allocator_choice(chosen, expected):
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen is not None:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    import pyarrow as pa

    if chosen is not None and chosen not in pa.supported_memory_backends():
        pytest.skip(f"this pyarrow build has no {chosen}")
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == [expected]
