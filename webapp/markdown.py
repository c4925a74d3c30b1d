"""User markdown rendered to HTML that is safe to show: nh3 keeps only harmless tags."""

from __future__ import annotations

import functools

import markdown as md
import nh3
from markupsafe import Markup

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}


@functools.lru_cache(maxsize=2048)
def render_markdown(text: str | None) -> Markup:
    """Kept per text: a page such as a system's renders the same assumptions on every view."""
    html = md.markdown(text or "", extensions=["tables", "sane_lists"], output_format="html")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return Markup(clean)  # noqa: S704 - sanitized by nh3 just above
