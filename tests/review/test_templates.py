"""The review macros every workspace renders its runs and proposals with, each rendered alone
through the app's templates."""

from datetime import UTC, datetime

import pytest

from tests.support.html import soup
from webapp.jobs.models import Run, RunStatus
from webapp.review.models import Change, Suggestion

EVIDENCE = {
    "source_url": "https://example.org/tomato",
    "title": "Tomato guide",
    "claim_summary": "Harvest starts 50 to 65 days after transplanting.",
}


@pytest.fixture
def render(session_app):
    """Call one macro of templates/review/_macros.html with the given arguments."""

    def render(macro: str, call: str, **context):
        source = f'{{% from "review/_macros.html" import {macro} %}}{{{{ {call} }}}}'
        with session_app.test_request_context():
            return soup(session_app.jinja_env.from_string(source).render(**context))

    return render


def suggestion(**values) -> Suggestion:
    fields = {
        "id": 7,
        "field": "growth_duration_days",
        "current_value": None,
        "suggested_value": 65,
        "unit": "days",
        "confidence": "high",
        "evidence": [EVIDENCE],
        "issues": [],
        "status": "pending",
    }
    return Suggestion(**(fields | values))


def test_issues_say_their_severity_in_a_word_and_an_icon_not_colour_alone(render):
    items = [
        {"severity": "error", "message": "Impossible yield.", "code": "yield_impossible"},
        {"severity": "warning", "message": "A derived figure.", "code": "evidence_derived"},
        {"severity": "info", "message": "Rounded.", "code": "rounded"},
    ]
    page = render("issues", "issues(items, id='checks')", items=items)
    shown = [
        (li["class"][-1], li.select_one(".icon").get_text(), li.select_one(".severity").get_text())
        for li in page.select("#checks li")
    ]
    assert shown == [
        ("issue-error", "✖", "error"),
        ("issue-warning", "⚠", "warning"),
        ("issue-info", "ℹ", "note"),
    ]
    # The sentence is read; the code is the tooltip (and the API's).
    error = page.select_one(".issue-error")
    assert error.get_text(" ", strip=True) == "✖ error Impossible yield."
    assert error["title"] == error["data-code"] == "yield_impossible"
    assert render("issues", "issues([])").get_text(strip=True) == ""
    named = render(
        "issues",
        "issues(items, label_of=labels.get)",
        items=[items[0] | {"field": "expected_yield"}],
        labels={"expected_yield": "Expected yield"},
    )
    assert named.li.get_text(" ", strip=True) == ("✖ error Expected yield : Impossible yield.")


def test_evidence_links_only_safe_addresses_and_says_where_and_what(render):
    items = [
        EVIDENCE
        | {"derived": True, "locator": {"document": "Guide.pdf", "page": 12, "passage": 3}},
        {"source_url": "javascript:alert(1)", "title": "Click me", "claim_summary": "Trust me."},
        {"url": "/library/3", "title": "Farm history", "snippet": "Founded in 1952."},
    ]
    page = render("evidence", "evidence(items)", items=items)
    links = [(a["href"], a.get_text()) for a in page.find_all("a")]
    assert links == [("https://example.org/tomato", "Tomato guide"), ("/library/3", "Farm history")]
    assert "javascript" not in str(page.find_all("a"))
    assert "Click me" in page.get_text()  # shown as text, not as a link
    first = page.select(".evidence")[0]
    assert first.select_one(".locator").get_text() == "(Guide.pdf, page 12, passage 3)"
    assert first.select_one(".badge.derived").get_text() == "derived"
    said = [d.p.get_text() for d in page.find_all("details")]
    assert said == [EVIDENCE["claim_summary"], "Trust me.", "Founded in 1952."]
    assert render("evidence", "evidence([])").get_text(strip=True) == "no source"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        " javascript:alert(1)",
        "data:text/html,x",
        "//evil.example/",
        "/\\evil.example/",
    ],
)
def test_source_link_renders_anything_but_a_web_page_as_plain_text(session_app, url):
    source = '{% from "_macros.html" import source_link %}{{ source_link(url, "Click me") }}'
    with session_app.test_request_context():
        page = soup(session_app.jinja_env.from_string(source).render(url=url))
    assert page.find("a") is None and page.get_text() == "Click me"


def test_a_suggestion_row_shows_now_proposed_confidence_evidence_and_status(render):
    page = render("suggestion_row", "suggestion_row(s, 'Growth duration')", s=suggestion())
    row = page.tr
    assert row["id"] == "suggestion-7" and row["data-valid"] == "true"
    pick = row.find("input", attrs={"name": "suggestion"})
    assert pick["value"] == "7" and pick["aria-label"] == "Apply Growth duration"
    assert not pick.has_attr("disabled")
    cells = [td.get_text(" ", strip=True) for td in row.find_all("td")]
    assert cells[1:4] == ["Growth duration", "—", "65 days high confidence"]
    assert row.find("a")["href"] == EVIDENCE["source_url"] and cells[-1] == "pending"
    assert not row.find("input", attrs={"name": "reconfirm"})


def test_a_stale_suggestion_offers_re_confirm_and_an_invalid_one_cannot_be_picked(render):
    stale = render(
        "suggestion_row", "suggestion_row(s, 'Growth duration')", s=suggestion(status="stale")
    )
    reconfirm = stale.find("input", attrs={"name": "reconfirm"})
    assert reconfirm["value"] == "7" and "Re-confirm" in reconfirm.parent.get_text()
    assert not stale.find("input", attrs={"name": "suggestion"}).has_attr("disabled")

    error = {"severity": "error", "message": "Too long.", "code": "too_long"}
    invalid = render(
        "suggestion_row",
        "suggestion_row(s, 'Growth duration')",
        s=suggestion(status="blocked", issues=[error]),
    )
    assert invalid.tr["data-valid"] == "false"
    assert invalid.find("input", attrs={"name": "suggestion"}).has_attr("disabled")
    assert invalid.select_one(".issue-error .severity").get_text() == "error"

    viewer = render(
        "suggestion_row",
        "suggestion_row(s, 'Growth duration', may_apply=false)",
        s=suggestion(status="stale"),
    )
    assert viewer.find("input", attrs={"name": "suggestion"}).has_attr("disabled")
    assert not viewer.find("input", attrs={"name": "reconfirm"})


def test_a_row_picked_by_record_may_have_its_value_edited(render):
    page = render(
        "suggestion_row",
        "suggestion_row(s, 'Greenacre Farm', checkbox_name='apply', value=3, id='proposal-3',"
        " edit_name='value-3')",
        s=suggestion(status="blocked", suggested_value="lots", issues=[{"severity": "error"}]),
    )
    assert page.tr["id"] == "proposal-3"
    assert page.find("input", attrs={"name": "apply"})["value"] == "3"
    edit = page.find("input", attrs={"name": "value-3"})
    assert edit["value"] == "lots" and edit["aria-label"] == "Proposed value for Greenacre Farm"
    assert page.find("button", attrs={"name": "apply", "value": "3"})


def test_run_progress_polls_while_the_run_is_live_and_then_stops(render):
    live = Run(status=RunStatus.running, stage="searching", done=1, total=4)
    page = render("run_progress", "run_progress(run, '/runs/5', 'run-status', 'rows')", run=live)
    section = page.section
    assert section["id"] == "run-status" and section["data-status"] == "running"
    assert (section["hx-get"], section["hx-trigger"]) == ("/runs/5", "every 1s")
    assert section.progress["value"] == "25"
    label = section.select_one(".progress-label").get_text(" ", strip=True)
    assert label == "running searching · 1 / 4 rows — 25 %"

    failed = Run(status=RunStatus.failed, stage="searching", done=2, total=4)
    page = render("run_progress", "run_progress(run, '/runs/5', 'run-status')", run=failed)
    assert page.section["data-status"] == "failed" and not page.section.has_attr("hx-get")
    label = page.select_one(".progress-label").get_text(" ", strip=True)
    assert label == "failed 2 / 4 items — 50 %"
    hidden = render(
        "run_progress", "run_progress(run, '/x', 'enrichment', live_only=true)", run=failed
    )
    assert hidden.section and not hidden.progress


def test_change_history_names_fields_escapes_values_and_shows_comments(render):
    at = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    changes = [
        Change(field="verdict", old_value=None, new_value="met", source="decide", at=at,
               comment="Checked on site."),
        Change(field="notes", old_value="", new_value="<script>x</script>", source="manual", at=at),
    ]  # fmt: skip
    labels = {"verdict": "Verdict", "notes": "Notes"}
    page = render(
        "change_history", "change_history(changes, labels.get)", changes=changes, labels=labels
    )
    assert not page.find("script")
    heads = [th.get_text() for th in page.select("#history th")]
    assert heads == ["When", "Who", "Field", "Before", "After", "How", "Comment"]
    rows = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in page.tbody("tr")]
    assert rows == [
        ["2025-03-01 09:30:00 UTC", "—", "Verdict", "—", "met", "decide", "Checked on site."],
        ["2025-03-01 09:30:00 UTC", "—", "Notes", "—", "<script>x</script>", "manual", ""],
    ]
    empty = render("change_history", "change_history([], labels.get)", labels=labels)
    assert empty.get_text(strip=True) == "No changes yet."


def test_a_suggestion_whose_field_changed_says_so_before_apply_with_both_values(render):
    s = suggestion(current_value=50, suggested_value=65)
    s.looked_up, s.now, s.changed_since = True, 60, True
    page = render("suggestion_row", "suggestion_row(s, 'Growth duration')", s=s)
    now = page.find("td", attrs={"data-label": "Now"}).get_text(" ", strip=True)
    assert now == "60 days ⟳ changed since the run was 50 days when researched, now 60 days"
    assert "changed" in page.tr["class"]
    label = page.find("input", attrs={"name": "reconfirm"}).parent
    assert label.name == "label" and label.get_text(strip=True) == "Re-confirm"

    same = suggestion(current_value=50)
    same.looked_up, same.now, same.changed_since = True, 50, False
    page = render("suggestion_row", "suggestion_row(s, 'Growth duration')", s=same)
    assert not page.find("input", attrs={"name": "reconfirm"}) and "changed" not in page.tr["class"]


def test_each_row_shows_its_worst_level_and_the_counts_name_every_level(render):
    issues = [
        {"severity": "info", "message": "Rounded."},
        {"severity": "warning", "message": "No spacing, so yield is not cross-checked."},
    ]
    page = render("suggestion_row", "suggestion_row(s, 'Yield')", s=suggestion(issues=issues))
    assert page.tr["data-level"] == "warning"
    assert page.select_one(".checks-cell > .level").get_text(" ", strip=True) == "⚠ warning"
    clean = render("suggestion_row", "suggestion_row(s, 'Yield')", s=suggestion())
    assert clean.select_one(".checks-cell > .level").get_text(" ", strip=True) == "✓ OK"

    counts = {"error": 2, "warning": 1, "info": 0, "none": 5}
    page = render("level_counts", "level_counts(counts)", counts=counts)
    words = [span.get_text(" ", strip=True) for span in page.select(".level")]
    assert words == ["✖ 2 with errors", "⚠ 1 with warnings", "ℹ 0 with notes", "✓ 5 without issues"]


def test_history_has_one_undo_button_per_undoable_group_and_the_newest_answers_u(render):
    at = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    changes = [
        Change(id=3, field="a", new_value=1, source="apply", group_id="g2", at=at),
        Change(id=2, field="b", new_value=2, source="apply", group_id="g2", at=at),
        Change(id=1, field="c", new_value=3, source="apply", group_id="g1", at=at),
    ]
    page = render(
        "change_history",
        "change_history(changes, labels.get, undoable=['g2', 'g1'], back='/here')",
        changes=changes,
        labels={"a": "A", "b": "B", "c": "C"},
    )
    forms = page.select("#history form")
    assert [f["action"] for f in forms] == ["/review/undo/g2", "/review/undo/g1"]
    assert {f.find("input", attrs={"name": "back"})["value"] for f in forms} == {"/here"}
    assert forms[0].button.get("data-key") == "u" and not forms[1].button.get("data-key")
    assert all(f.find("input", attrs={"name": "csrf_token"}) for f in forms)


def test_the_keys_dialog_has_no_form_of_its_own_so_it_may_stand_in_a_review_form(render):
    page = render("keys_help", "keys_help()")
    assert page.find("dialog", id="keys-help")
    assert not page.find("form")  # a form in a form would end the review form early
    close = page.find("button", attrs={"data-close-keys": True})
    assert (close.get_text(), close["type"]) == ("Close", "button")


@pytest.fixture
def render_source(session_app):
    """Render a template source that uses the review macros (a call block, say)."""

    def render_source(source: str, **context):
        with session_app.test_request_context():
            return soup(session_app.jinja_env.from_string(source).render(**context))

    return render_source


def test_evidence_may_show_what_it_says_open_with_the_callers_words_on_its_line(
    render, render_source
):
    passage = {
        "source_url": "/registry/1/documents/2/pages/4",
        "title": "plan.pdf",
        "claim_summary": "The farm is owned by Nicholas Denman.",
        "locator": {"document": "plan.pdf", "document_id": 2, "page": 4, "section": "2.1"},
        "confidence": 0.6,
    }
    page = render("evidence", "evidence(items, open=true)", items=[passage])
    # The document is the link's title: the locator does not repeat it.
    assert page.select_one(".locator").get_text() == "(page 4, section 2.1)"
    assert page.details.has_attr("open")
    with_caller = render_source(
        '{% from "review/_macros.html" import evidence %}'
        "{% call(e) evidence(items) %} · {{ e.confidence }}{% endcall %}",
        items=[passage],
    )
    assert with_caller.select_one(".evidence").get_text(" ", strip=True).endswith("· 0.6")
    assert not with_caller.details.has_attr("open")


def test_change_history_may_name_its_table(render_source):
    at = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    changes = [Change(field="verdict", new_value="met", source="decide", group_id="g", at=at)]
    page = render_source(
        '{% from "review/_macros.html" import change_history %}'
        '{{ change_history(changes, labels.get, id="decisions", undoable=["g"], back="/r") }}',
        changes=changes,
        labels={"verdict": "Verdict"},
    )
    assert [th.get_text() for th in page.select("#decisions th")][-1] == "Undo"
    assert page.select_one("#decisions form")["action"] == "/review/undo/g"
    assert not page.find(id="history")
