"""What a new password must be: long, more than one character repeated, not common, and not
easy to guess by zxcvbn's estimate (keyboard runs, repeats, sequences, dates, words)."""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path

MIN_PASSWORD = 12
COMMON_PASSWORDS = Path(__file__).with_name("common-passwords.txt")
# "Password2024!" is as guessable as "password": these around a common one do not help.
PADDING = string.digits + string.punctuation + string.whitespace
# zxcvbn's scores run 0–4; 3 is "safely unguessable" against an online attack at scale.
MIN_SCORE = 3
# zxcvbn scores at most 72 characters (its cost grows faster than the length); the rest of a
# longer password only adds strength.
SCORED_CHARS = 72


@cache
def common_passwords() -> frozenset[str]:
    lines = COMMON_PASSWORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def password_problem(password: str) -> str | None:
    """Why this password may not be used, or None when it may."""
    if len(password) < MIN_PASSWORD:
        return f"Use at least {MIN_PASSWORD} characters."
    if len(set(password)) == 1 or password.isspace():
        return "Use more than one character repeated, and more than spaces."
    lowered = password.lower()
    if {lowered, "".join(lowered.split()), lowered.strip(PADDING)} & common_passwords():
        return "This is one of the most common passwords; choose another."
    # Imported here: its word lists take 14 MB in every process, and only a new password needs them.
    from zxcvbn import zxcvbn

    estimate = zxcvbn(password[:SCORED_CHARS])
    if estimate["score"] < MIN_SCORE:
        feedback = estimate["feedback"]
        why = " ".join([feedback["warning"], *feedback["suggestions"]]).strip()
        return f"This password is easy to guess. {why or 'Add another word or two.'}"
    return None
