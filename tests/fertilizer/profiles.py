"""The agrr crop profiles shipped as fixtures, read as they are."""

import json
from pathlib import Path

# Copied byte for byte from the real `agrr crop` output (see agrr/README.md).
AGRR = Path(__file__).with_name("agrr")
TOMATO_FILE = AGRR / "tomato_profile.json"
LETTUCE_FILE = AGRR / "lettuce_profile.json"


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def profile(name: str, crop_id: str | None = None, **crop) -> dict:
    return {"crop": {"crop_id": crop_id or name, "name": name, **crop}, "stage_requirements": []}


# The keys of a plan document: seed 001's, and the method and what each total is.
PLAN_KEYS = {"crop", "totals", "applications", "sources", "confidence", "notes", "method", "basis"}
