"""Background runs: the Run model, the queue, the worker's runner, the sweeper and their pages;
its blueprints made when first named (webapp.lazy_blueprints)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from webapp.lazy_blueprints import blueprints_when_named

if TYPE_CHECKING:
    from flask import Blueprint

    bp: Blueprint
    api: Blueprint
    blueprints: tuple[Blueprint, ...]

__getattr__ = blueprints_when_named(__name__, ("runs", None), ("runs_api", "/api/v1"))
