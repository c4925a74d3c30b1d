"""Blueprints a package makes when they are first named (by create_app or a view module), not
when the package is imported: the PDF sandbox's child process imports webapp.library and
webapp.jobs, and Flask is a third of its start-up it has no use for."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def blueprints_when_named(
    package: str, page: tuple[str, str | None], api: tuple[str, str]
) -> Callable[[str], Any]:
    """The package's module __getattr__: bp (page name, url prefix), api (name, prefix) and
    blueprints (both), made once on first use."""

    def named(name: str) -> Any:
        if name not in ("bp", "api", "blueprints"):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from flask import Blueprint

        made = sys.modules[package].__dict__
        made["bp"] = Blueprint(page[0], package, url_prefix=page[1])
        made["api"] = Blueprint(api[0], package, url_prefix=api[1])
        made["blueprints"] = (made["bp"], made["api"])
        return made[name]

    return named
