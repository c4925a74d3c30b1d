"""Only web pages (http or https) and pages of this site are stored as sources and linked."""

import pytest

from webapp.links import is_safe_link
from webapp.review.vocabulary import Evidence


@pytest.mark.parametrize(
    "url",
    ["https://example.org/tomato?x=1", "http://example.org", "HTTPS://Example.org/", "/library/3"],
)
def test_web_pages_and_pages_of_this_site_are_links(url):
    assert is_safe_link(url)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "java\tscript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "//evil.example/",
        "/\\evil.example/",
        "https://",
        "https:///path",
        "http://[::1",
        "https://example.org/a b",
        "https://example.org/\n",
        "example.org",
        "",
        None,
        42,
    ],
)
def test_anything_else_is_not(url):
    assert not is_safe_link(url)


def test_evidence_keeps_its_claim_but_drops_an_address_that_is_no_web_page():
    evidence = Evidence("javascript:alert(1)", "Click me", "Harvest after 60 days.")
    assert evidence.source_url == "" and evidence.claim_summary == "Harvest after 60 days."
    assert not evidence.is_citable
    assert Evidence("https://example.org/", "Guide", "x").source_url == "https://example.org/"
