"""One template serves both the whole page and its htmx fragment."""

from __future__ import annotations

from flask import get_flashed_messages, render_template
from jinja2_fragments.flask import render_block

from webapp.extensions import htmx


def render_page(template: str, fragment: str | None = None, **context) -> str:
    """Whole page for a normal request; only the named block when htmx asks for it, with the
    messages flashed for it swapped into the page's own (out of band)."""
    if fragment is not None and htmx and not htmx.boosted:
        block = render_block(template, fragment, **context)
        # Read once per request: the template's own read gets the same messages.
        if get_flashed_messages():
            block += render_template("_flashes.html", oob=True)
        return block
    return render_template(template, **context)
