"""Which addresses Furrow stores as sources and renders as links: web pages (http or https) and
pages of this site. Anything else a provider, a form or a file gives (`javascript:`, `data:`,
`file:`, a protocol-relative `//host`) is kept as text at most, never as a link."""

from __future__ import annotations

from urllib.parse import urlsplit

WEB_SCHEMES = ("http://", "https://")


def is_safe_link(url: object) -> bool:
    """url is an absolute http(s) address with a host, or a path on this site ("/library/3");
    without spaces or control characters, which browsers strip and so read another scheme."""
    if not isinstance(url, str) or not url.isprintable() or any(c.isspace() for c in url):
        return False
    if url.lower().startswith(WEB_SCHEMES):
        try:
            return bool(urlsplit(url).hostname)
        except ValueError:  # a broken IPv6 literal, a port that is no number
            return False
    return is_site_path(url)


def is_site_path(url: object) -> bool:
    """url is a path on this site, so a form may say where to send a person back to."""
    if not isinstance(url, str) or not url.isprintable() or any(c.isspace() for c in url):
        return False
    # "//host" and "/\host" are other hosts to a browser.
    return url.startswith("/") and not url.startswith(("//", "/\\"))
