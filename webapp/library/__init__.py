"""The document library: uploaded documents and the reference library, searchable as passages.

Its blueprints are made when first named (by create_app or a view module), not with the
package: the PDF sandbox's child process imports this package, and Flask is a third of its
start-up it has no use for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Blueprint

    bp: Blueprint
    api: Blueprint
    blueprints: tuple[Blueprint, ...]


def __getattr__(name: str) -> Any:
    if name not in ("bp", "api", "blueprints"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from flask import Blueprint

    made = globals()
    made["bp"] = Blueprint("library", __name__, url_prefix="/library")
    made["api"] = Blueprint("library_api", __name__, url_prefix="/api/v1/library")
    made["blueprints"] = (made["bp"], made["api"])
    return made[name]
