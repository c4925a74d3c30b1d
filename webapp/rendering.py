"""One template serves both the whole page and its htmx fragment."""

from __future__ import annotations

from flask import render_template
from jinja2_fragments.flask import render_block

from webapp.extensions import htmx


def render_page(template: str, fragment: str | None = None, **context) -> str:
    """Whole page for a normal request; only the named block when htmx asks for it."""
    if fragment is not None and htmx and not htmx.boosted:
        return render_block(template, fragment, **context)
    return render_template(template, **context)
