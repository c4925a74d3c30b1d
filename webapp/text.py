"""Text that people type or files carry: never a NUL or another control character (they hide
in pages, break exports and terminals); tab and line breaks only in multi-line text."""

from __future__ import annotations

import re
from typing import Any

# C0 controls, DEL and C1 controls (Unicode category Cc).
_ONE_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_MULTI_LINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def control_character_problem(text: str, multiline: bool = False) -> str | None:
    """Why text may not be stored (its first control character), or None when it may."""
    found = (_MULTI_LINE if multiline else _ONE_LINE).search(text)
    if found is None:
        return None
    allowed = " (tab and line breaks are fine here)" if multiline else ""
    return (
        f"Remove the control character U+{ord(found.group()):04X} at character "
        f"{found.start() + 1}{allowed}."
    )


NUL_IN_TEXT = "A text may not hold a NUL character (U+0000): remove it."


def nul_paths(data: Any, most: int = 50) -> list[tuple[Any, ...]]:
    """Where JSON-like data holds a NUL, in a text or a key (the path to the key's object):
    the first `most` places, as keys and indexes. PostgreSQL's text and JSONB cannot hold one,
    so a document stored whole is walked for it (without recursion) before it is stored."""
    found: list[tuple[Any, ...]] = []
    pending: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while pending and len(found) < most:
        node, path = pending.pop()
        if isinstance(node, str):
            if "\x00" in node:
                found.append(path)
            continue
        if isinstance(node, dict):
            if any("\x00" in key for key in node):
                found.append(path)
            parts = list(node.items())
        elif isinstance(node, list):
            parts = list(enumerate(node))
        else:
            continue
        pending.extend(((child, (*path, part)) for part, child in reversed(parts)))
    return found


def listed(names: list[str], most: int = 5) -> str:
    """ "a, b and c"; past most names, how many more."""
    shown = names[:most]
    rest = len(names) - len(shown)
    if rest:
        return f"{', '.join(shown)} and {rest:,} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
