"""Background runs: the Run model, the queue, the worker's runner, the sweeper and their pages.

Its blueprints are made when first named (by create_app or a view module), not with the
package: the PDF sandbox's child process imports webapp.jobs.processes, and has no use for
Flask (as webapp.library)."""

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
    made["bp"] = Blueprint("runs", __name__)
    made["api"] = Blueprint("runs_api", __name__, url_prefix="/api/v1")
    made["blueprints"] = (made["bp"], made["api"])
    return made[name]
