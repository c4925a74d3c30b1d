"""What a grower knows of the field's soil, in the words the methods use: the texture, and the
P and K soil-test result as RB209's index (P 0–4, K 0, 1, 2-, 2+, 3, 4) or VDLUFA's class
(A very low … E very high). The earlier words low / medium / high are read as VDLUFA's
niedrig / anzustreben / hoch (classes B, C, D) and RB209's below-target / target /
above-target indices (1, 2, 3), and the plan says it read them so."""

from __future__ import annotations

from typing import Any

# Seed 001's soil types, and silt for RB209's deep silty soils.
TEXTURE_LABELS = {
    "sand": "sand (light, free-draining)",
    "loam": "loam (medium)",
    "silt": "silt (deep silty)",
    "clay": "clay (heavy)",
    "peat": "peat or organic",
}
TEXTURES = tuple(TEXTURE_LABELS)
P_INDICES = ("0", "1", "2", "3", "4")
K_INDICES = ("0", "1", "2-", "2+", "3", "4")
CLASSES = ("A", "B", "C", "D", "E")
CLASS_WORDS = {
    "A": "very low",
    "B": "low",
    "C": "optimal",
    "D": "high",
    "E": "very high",
}
WORDS = {"low": ("B", "1"), "medium": ("C", "2"), "high": ("D", "3")}


def parse_texture(value: Any) -> str | None:
    """A texture from TEXTURES, None when blank; ValueError says what is allowed."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or value.strip().lower() not in TEXTURES:
        raise ValueError(f"must be one of {', '.join(TEXTURES)}, got {value!r}")
    return value.strip().lower()


def parse_status(value: Any, nutrient: str) -> str | None:
    """A soil-test result for P or K as one of the methods writes it, None when blank."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"must be text, got {value!r}")
    text = value.strip()
    # K's "2" is the index before RB209 split it into 2- and 2+ (read as 2-).
    indices = P_INDICES if nutrient == "P" else (*K_INDICES, "2")
    if text.upper() in CLASSES:
        return text.upper()
    if text.lower() in WORDS:
        return text.lower()
    if text in indices:
        return text
    raise ValueError(
        f"must be an RB209 index ({', '.join(indices)}), a VDLUFA class (A–E)"
        f" or low, medium, high; got {value!r}"
    )


def as_class(status: str | None) -> tuple[str | None, str | None]:
    """The VDLUFA class a status names, and a note when it was read from other words; an
    RB209 index names no class."""
    if status is None:
        return None, None
    if status in CLASSES:
        return status, None
    if status in WORDS:
        letter = WORDS[status][0]
        return letter, f"“{status}” read as VDLUFA class {letter} ({CLASS_WORDS[letter]})"
    return None, None


def as_index(status: str | None) -> tuple[str | None, str | None]:
    """The RB209 index a status names, and a note when it was read from other words; a
    VDLUFA class names no index."""
    if status is None or status in CLASSES:
        return None, None
    if status in WORDS:
        index = WORDS[status][1]
        return index, f"“{status}” read as RB209 index {index}"
    return status, None
