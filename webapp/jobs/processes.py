"""Starting child processes that cannot outlive the process that started them (Linux)."""

from __future__ import annotations

import ctypes
import ctypes.util
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send sig to this process when its parent dies, even by SIGKILL."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return
    libc = ctypes.CDLL(libc_name, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
