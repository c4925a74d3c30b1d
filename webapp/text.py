"""Text that people type or files carry: never a NUL or another control character (they hide
in pages, break exports and terminals); tab and line breaks only in multi-line text."""

from __future__ import annotations

import re

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
