"""Reviewing a batch enrichment run: the queue as a review (levels, filters, keys, pages), a
culture's page for any run with previous/next, apply all valid after a confirm page, reject,
one undo across the batch, and a refused apply that redirects with its reasons."""

import re

import pytest

from tests.support.cultures import finished_enrichment, issue, suggestion
from tests.support.html import by_id, counts_of, rows, soup
from webapp.cultures.catalog import edit_culture
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.links import with_args
from webapp.review.models import Change, Suggestion, SuggestionStatus
from webapp.review.service import store_findings, store_suggestions
from webapp.review.vocabulary import Issue, Severity

UNKNOWN = "The reference library has no data for “Dragonfruit”; nothing is suggested."


@pytest.fixture
def batch(app):
    """Four cultures and a finished run: Carrot with a warning, a clean and an invalid
    suggestion; Lettuce with three clean ones; Dragonfruit unknown to the library; Bean with a
    note."""
    cultures = [
        Culture(name="Carrot", reference_crop="carrot"),
        Culture(name="Lettuce", variety="Maikönig", reference_crop="lettuce"),
        Culture(name="Dragonfruit"),
        Culture(name="Bean", reference_crop="dry_bean"),
    ]
    db.session.add_all(cultures)
    db.session.commit()
    carrot, lettuce, dragonfruit, bean = (c.id for c in cultures)
    run = finished_enrichment([carrot, lettuce, dragonfruit, bean])
    store_suggestions(
        [
            suggestion(run, carrot, "growth_duration_days", 70,
                       issues=[issue("warning", "growth_duration_days", "Counts from sowing.")]),
            suggestion(run, carrot, "row_spacing_cm", 25.0),
            suggestion(run, carrot, "expected_yield", 40.0,
                       issues=[issue("error", "expected_yield", "40 kg/m² is impossible.")]),
            suggestion(run, lettuce, "sowing_depth_cm", 1.0),
            suggestion(run, lettuce, "harvest_method", "per_sqm"),
            suggestion(run, lettuce, "expected_yield", 4.0),
            suggestion(run, bean, "row_spacing_cm", 40.0,
                       issues=[issue("info", "row_spacing_cm", "Rounded to whole cm.")]),
        ]
    )  # fmt: skip
    store_findings(
        run.id,
        "culture",
        [dragonfruit],
        [Issue("reference_crop_unknown", Severity.info, None, UNKNOWN)],
    )
    db.session.commit()
    return run, {c.name: c.id for c in cultures}


def suggestion_of(culture_id: int, field: str, run_id: int | None = None) -> Suggestion:
    query = db.session.query(Suggestion).filter_by(target_id=culture_id, field=field)
    return query.filter_by(run_id=run_id).one() if run_id else query.one()


def queue_rows(page) -> list[list[str]]:
    return rows(by_id(page, "review-queue"))


def names_in(page) -> list[str]:
    return [a.get_text() for a in by_id(page, "review-queue").select("td[data-label=Culture] a")]


def flashes(page) -> list[str]:
    return [li.get_text(" ", strip=True) for li in soup(page).select(".flashes li")]


def test_the_queue_is_a_review_of_the_run_with_links_levels_and_keys(client_as, batch):
    run, ids = batch
    page = client_as("reviewer").get(f"/cultures/runs/{run.id}/review")
    table = by_id(page, "review-queue")
    assert table["class"] == ["data", "review", "queue"]
    links = [a["href"] for a in table.select("td[data-label=Culture] a")]
    assert links == [
        f"/cultures/{ids[name]}?run={run.id}#enrichment"
        for name in ("Carrot", "Lettuce", "Dragonfruit", "Bean")
    ]
    assert names_in(page) == ["Carrot", "Lettuce ‘Maikönig’", "Dragonfruit", "Bean"]
    items = table.select("tbody tr.review-item")
    assert [row["data-level"] for row in items] == ["error", "none", "info", "info"]
    levels = [row.select_one("td[data-label=Level]").get_text(" ", strip=True) for row in items]
    assert levels == ["✖ error", "✓ OK", "ℹ note", "ℹ note"]
    picks = table.select("input.pick")
    assert [p["value"] for p in picks] == [
        str(ids[n]) for n in ("Carrot", "Lettuce", "Dragonfruit", "Bean")
    ]
    assert picks[2].has_attr("disabled")  # nothing suggested, nothing to decide
    assert all(td.has_attr("data-label") for td in table.select("td"))
    html = page.get_data(as_text=True)
    assert 'id="keys-help"' in html and 'data-select="all"' in html
    assert "all 4 matching culture(s), every page" in by_id(page, "main").get_text(" ")
    assert soup(page).select_one('[data-key="a"]').get_text() == "Apply all valid…"
    assert soup(page).select_one('[data-key="r"]').get_text() == "Reject selected"
    # Why, in words: the library does not know it; an invalid value cannot be applied.
    why = {row[1]: row[-1] for row in queue_rows(page)}
    assert why["Dragonfruit"] == UNKNOWN
    assert why["Carrot"] == "Expected yield cannot be applied: 40 kg/m² is impossible."
    assert why["Lettuce ‘Maikönig’"] == ""


def test_the_queue_counts_every_suggestion_by_level_and_each_count_filters(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    counts = by_id(reviewer.get(f"/cultures/runs/{run.id}/review"), "level-counts")
    said = {a.get_text(" ", strip=True): a["href"] for a in counts.select("a")}
    assert said == {
        "✖ 1 with errors": f"/cultures/runs/{run.id}/review?level=error",
        "⚠ 1 with warnings": f"/cultures/runs/{run.id}/review?level=warning",
        "ℹ 1 with notes": f"/cultures/runs/{run.id}/review?level=info",
        "✓ 4 without issues": f"/cultures/runs/{run.id}/review?level=none",
    }
    # A culture is listed at each level among its suggestions and findings.
    shown = {
        query: names_in(reviewer.get(f"/cultures/runs/{run.id}/review?{query}"))
        for query in (
            "level=error",
            "level=warning",
            "level=info",
            "level=none",
            "level=nothing",
            "pending=1",
            "level=bogus",
        )
    }
    assert shown == {
        "level=error": ["Carrot"],
        "level=warning": ["Carrot"],
        "level=info": ["Dragonfruit", "Bean"],
        "level=none": ["Carrot", "Lettuce ‘Maikönig’"],
        "level=nothing": ["Dragonfruit"],
        "pending=1": ["Carrot", "Lettuce ‘Maikönig’", "Bean"],
        "level=bogus": ["Carrot", "Lettuce ‘Maikönig’", "Dragonfruit", "Bean"],
    }
    filtered = by_id(reviewer.get(f"/cultures/runs/{run.id}/review?level=info"), "review-queue")
    assert filtered.select_one("td[data-label=Culture] a")["href"] == (
        f"/cultures/{ids['Dragonfruit']}?run={run.id}&level=info#enrichment"
    )


def test_a_culture_page_shows_the_suggestions_of_the_run_its_address_names(client_as, batch):
    run, ids = batch
    lettuce = ids["Lettuce"]
    newer = finished_enrichment([lettuce])
    store_suggestions([suggestion(newer, lettuce, "sowing_depth_cm", 2.0)])
    db.session.commit()
    reviewer = client_as("reviewer")

    def depth(url):
        page = reviewer.get(url)
        assert page.status_code == 200
        return by_id(page, "suggestion-sowing_depth_cm").select_one("td[data-label=Suggested]")

    assert depth(f"/cultures/{lettuce}").strong.get_text() == "2"  # the newest by default
    older = reviewer.get(f"/cultures/{lettuce}?run={run.id}")
    assert by_id(older, "suggestion-sowing_depth_cm").strong.get_text() == "1"
    back = soup(older).select_one("#enrichment form input[name=back]")["value"]
    assert back == f"/cultures/{lettuce}?run={run.id}#enrichment"
    assert by_id(older, "suggestions").select("tr.review-item")
    for missing in ("999999", "abc", "0"):
        assert reviewer.get(f"/cultures/{lettuce}?run={missing}").status_code == 404


def test_previous_and_next_follow_the_queue_and_its_filter(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")

    def around(name, queue_filter=""):
        page = soup(reviewer.get(f"/cultures/{ids[name]}?run={run.id}{queue_filter}"))
        nav = page.select_one("nav.review-nav")
        return (
            (nav.select_one("a[rel=prev]") or {}).get("href"),
            (nav.select_one("a[rel=next]") or {}).get("href"),
        )

    def at(name, queue_filter=""):
        return f"/cultures/{ids[name]}?run={run.id}{queue_filter}#enrichment"

    assert around("Lettuce") == (at("Carrot"), at("Dragonfruit"))
    assert around("Carrot") == (None, at("Lettuce"))
    assert around("Bean") == (at("Dragonfruit"), None)
    # Within a filter; one that left it (Lettuce has no notes) still has both sides.
    assert around("Dragonfruit", "&level=info") == (None, at("Bean", "&level=info"))
    assert around("Lettuce", "&level=info") == (None, at("Dragonfruit", "&level=info"))
    nav = soup(reviewer.get(f"/cultures/{ids['Bean']}?run={run.id}&level=info")).select_one(
        "nav.review-nav"
    )
    assert f'href="/cultures/runs/{run.id}/review?level=info"' in str(nav)
    assert "Queue of run #" in nav.get_text() and "2 culture(s) with notes" in nav.get_text()
    # Without ?run= the page is no review of a batch: no queue to walk.
    assert soup(reviewer.get(f"/cultures/{ids['Lettuce']}")).select_one("nav.review-nav") is None


def test_the_queue_pages_a_large_run_and_a_culture_links_back_to_its_page(client_as, app):
    cultures = [Culture(name=f"Crop {n:03d}") for n in range(120)]
    db.session.add_all(cultures)
    db.session.commit()
    run = finished_enrichment([c.id for c in cultures])
    store_suggestions([suggestion(run, c.id, "sowing_depth_cm", 1.0) for c in cultures])
    db.session.commit()
    reviewer = client_as("reviewer")
    first = reviewer.get(f"/cultures/runs/{run.id}/review")
    assert len(queue_rows(first)) == 100
    assert "all 120 matching culture(s), every page" in first.get_data(as_text=True)
    second = reviewer.get(f"/cultures/runs/{run.id}/review?page=2")
    assert names_in(second)[0] == "Crop 100" and len(queue_rows(second)) == 20
    nav = soup(reviewer.get(f"/cultures/{cultures[110].id}?run={run.id}")).select_one(
        "nav.review-nav"
    )
    assert f"/cultures/runs/{run.id}/review?page=2" in str(nav)


def choose(reviewer, run, data):
    """What the queue's form posts: its Apply or Reject button, with the ticked cultures."""
    data = dict(data)
    action = "apply-all" if data.pop("action") == "apply_valid" else "reject-all"
    if "culture" in data:
        data["record"] = data.pop("culture")
    queue = f"/cultures/runs/{run.id}/review"
    back = with_args(queue, level=data.get("level"), pending=data.get("pending"))
    form = {"selection": "1", "back": back, **data}
    return reviewer.submit(f"/review/runs/{run.id}/{action}", form, page=queue)


def test_apply_all_valid_first_counts_what_changes_and_what_is_left_out(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    # Lettuce's sowing depth is set by hand after the run; Bean's note is rejected.
    lettuce = db.session.get(Culture, ids["Lettuce"])
    edit_culture(lettuce, {"sowing_depth_cm": 2.0}, None)
    suggestion_of(ids["Bean"], "row_spacing_cm").status = SuggestionStatus.rejected
    db.session.commit()
    confirm = choose(reviewer, run, {"action": "apply_valid", "all_matching": "1"})
    assert confirm.status_code == 200
    assert by_id(confirm, "apply-count").get_text(" ", strip=True) == (
        "4 field(s) across 2 culture(s) will change, as one apply you can undo."
    )
    assert counts_of(confirm) == {
        "Will be applied": "4",
        "Skipped: invalid": "1",
        "Skipped: already applied or rejected": "1",
        "Skipped: changed since the run": "1",
    }
    assert (
        by_id(confirm, "apply-stale").get_text(" ", strip=True)
        == "Lettuce ‘Maikönig’ : Sowing depth"
    )
    assert db.session.query(Change).filter_by(source="apply").count() == 0  # nothing yet
    hidden = {i["name"]: i["value"] for i in soup(confirm).select("form input[type=hidden]")}
    assert hidden["all_matching"] == "1" and hidden["confirmed"] == "1"

    applied = choose(
        reviewer, run, {"action": "apply_valid", "all_matching": "1", "confirmed": "1"}
    )
    assert applied.status_code == 302
    group = re.search(r"undo=([0-9a-f]+)", applied.headers["Location"]).group(1)
    changes = db.session.query(Change).filter_by(source="apply").all()
    assert {c.group_id for c in changes} == {group}  # one undoable group for the batch
    assert {(c.target_id, c.field) for c in changes} >= {
        (ids["Carrot"], "growth_duration_days"),
        (ids["Carrot"], "row_spacing_cm"),
        (ids["Lettuce"], "harvest_method"),
        (ids["Lettuce"], "expected_yield"),
    }
    queue = reviewer.get(applied.headers["Location"])
    assert flashes(queue)[:2] == [
        "Applied 4 field(s) across 2 culture(s).",
        "Left out: 1 invalid, 1 changed since the run (re-confirm them on the culture's page), "
        "1 already decided.",
    ]
    undo = soup(queue).select_one('[data-key="u"]')
    assert undo.get_text() == "Undo this apply"
    assert undo.find_parent("form")["action"] == f"/review/undo/{group}"

    back = undo.find_parent("form").find("input", attrs={"name": "back"})["value"]
    undone = reviewer.submit(
        undo.find_parent("form")["action"], {"back": back}, page=applied.headers["Location"]
    )
    assert undone.status_code == 302
    said = flashes(reviewer.get(undone.headers["Location"]))[0]
    assert said == (
        "Undone — Carrot: Growth duration, Row spacing, Sources; "
        "Lettuce ‘Maikönig’: Harvest method (the yield's context), Expected yield, Sources."
    )
    carrot = db.session.get(Culture, ids["Carrot"])
    assert carrot.growth_duration_days is None and carrot.row_spacing_cm is None
    assert suggestion_of(ids["Carrot"], "row_spacing_cm").status == SuggestionStatus.pending


def test_a_batch_undo_names_what_changed_since_and_undoes_nothing(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    chosen = {"action": "apply_valid", "culture": [str(ids["Carrot"]), str(ids["Lettuce"])]}
    applied = choose(reviewer, run, chosen | {"confirmed": "1"})
    group = re.search(r"undo=([0-9a-f]+)", applied.headers["Location"]).group(1)
    carrot = db.session.get(Culture, ids["Carrot"])
    edit_culture(carrot, {"row_spacing_cm": 30.0}, None)
    db.session.commit()
    refused = reviewer.submit(f"/review/undo/{group}", page="/cultures")
    assert flashes(reviewer.get(refused.headers["Location"])) == [
        "Nothing was undone: these changed since — Carrot: Row spacing."
    ]
    assert db.session.get(Culture, ids["Lettuce"]).expected_yield == 4


def test_reject_selected_rejects_what_the_chosen_cultures_left_open(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    chosen = [str(ids["Carrot"]), str(ids["Bean"]), "999999"]  # one id is no culture of the run
    rejected = choose(reviewer, run, {"action": "reject", "culture": chosen})
    assert rejected.status_code == 302
    assert flashes(reviewer.get(rejected.headers["Location"]))[0] == (
        "Rejected 4 suggestion(s) across 2 culture(s)."
    )
    statuses = {
        (s.target_id, s.status) for s in db.session.query(Suggestion).order_by(Suggestion.id)
    }
    assert statuses == {
        (ids["Carrot"], "rejected"),
        (ids["Bean"], "rejected"),
        (ids["Lettuce"], "pending"),
    }
    nothing = choose(reviewer, run, {"action": "reject"})
    assert flashes(reviewer.get(nothing.headers["Location"]))[0] == "Select at least one culture."


def test_only_reviewers_decide_a_batch(client_as, batch):
    run, _ids = batch
    editor = client_as("editor")
    assert choose(editor, run, {"action": "reject", "all_matching": "1"}).status_code == 403
    assert editor.submit("/review/undo/abc123", page="/cultures").status_code == 403
    page = editor.get(f"/cultures/runs/{run.id}/review")
    assert soup(page).select("input.pick") == [] and soup(page).select("[data-key]") == []
    assert db.session.query(Suggestion).filter_by(status="rejected").count() == 0


def test_a_refused_apply_redirects_with_its_reasons_and_the_stale_value_shows_first(
    client_as, batch
):
    run, ids = batch
    lettuce = db.session.get(Culture, ids["Lettuce"])
    edit_culture(lettuce, {"sowing_depth_cm": 2.0}, None)
    db.session.commit()
    reviewer = client_as("reviewer")
    url = f"/cultures/{lettuce.id}?run={run.id}&level=none"
    page = reviewer.get(url)
    row = by_id(page, "suggestion-sowing_depth_cm")
    assert "changed" in row["class"]
    assert "changed since the run was — when researched, now 2" in row.get_text(" ", strip=True)
    assert row.select_one("label.reconfirm").get_text(strip=True) == "Re-confirm"

    depth = suggestion_of(lettuce.id, "sowing_depth_cm")
    method = suggestion_of(lettuce.id, "harvest_method")
    back = soup(page).select_one("#enrichment form input[name=back]")["value"]
    picked = {"suggestion": [str(depth.id), str(method.id)], "back": back}
    refused = reviewer.submit(f"/review/runs/{run.id}/apply", picked, page=url)
    assert refused.status_code == 302
    back = refused.headers["Location"]
    assert re.fullmatch(
        rf"/cultures/{lettuce.id}\?run={run.id}&level=none&undo=[0-9a-f]+#enrichment", back
    )
    again = reviewer.get(back)
    assert flashes(again) == [
        "Applied Harvest method (the yield's context) of Lettuce ‘Maikönig’.",
        "Not applied — Sowing depth of Lettuce ‘Maikönig’: The field changed after this "
        "suggestion was made; re-confirm it to apply it anyway.",
    ]
    assert reviewer.get(back).status_code == 200  # a reload shows the page, sends nothing
    again = {"suggestion": str(depth.id), "reconfirm": str(depth.id), "back": back}
    reconfirmed = reviewer.submit(f"/review/runs/{run.id}/apply", again, page=url)
    assert flashes(reviewer.get(reconfirmed.headers["Location"])) == [
        "Applied Sowing depth of Lettuce ‘Maikönig’."
    ]
    assert db.session.get(Culture, lettuce.id).sowing_depth_cm == 1.0


def test_apply_all_valid_on_a_culture_page_leaves_out_what_changed_and_says_so(client_as, batch):
    run, ids = batch
    lettuce = db.session.get(Culture, ids["Lettuce"])
    edit_culture(lettuce, {"sowing_depth_cm": 2.0}, None)
    db.session.commit()
    reviewer = client_as("reviewer")
    # The page's "Apply all valid" is the review core's, for this culture, confirmed at once.
    page = soup(reviewer.get(f"/cultures/{lettuce.id}"))
    button = page.find("button", string="Apply all valid")
    assert button["formaction"] == f"/review/runs/{run.id}/apply-all"
    form = {i["name"]: i["value"] for i in button.find_parent("form").select("input[type=hidden]")}
    assert form["record"] == str(lettuce.id)
    applied = reviewer.submit(
        button["formaction"],
        {"record": form["record"], "back": form["back"], button["name"]: button["value"]},
        page=f"/cultures/{lettuce.id}",
    )
    assert flashes(reviewer.get(applied.headers["Location"])) == [
        "Applied 2 field(s).",
        "Left out: 1 changed since the run (re-confirm them on the culture's page).",
    ]
    # Held for a person's re-confirm, as every apply-all holds a changed value.
    assert suggestion_of(lettuce.id, "sowing_depth_cm").status == SuggestionStatus.stale


def test_the_history_speaks_in_labels_and_units_and_undo_keeps_the_page(client_as, batch):
    run, ids = batch
    lettuce = ids["Lettuce"]
    reviewer = client_as("reviewer")
    url = f"/cultures/{lettuce}?run={run.id}"
    picked = [suggestion_of(lettuce, f) for f in ("harvest_method", "expected_yield")]
    reviewer.submit(
        f"/review/runs/{run.id}/apply",
        {"suggestion": [str(s.id) for s in picked], "back": url},
        page=url,
    )
    page = reviewer.get(url)
    history = {row[2]: row[3:5] for row in rows(by_id(page, "history"))}
    assert history["Harvest method (the yield's context)"] == ["—", "per m²"]
    assert history["Expected yield"] == ["—", "4 kg/m²"]
    undo = by_id(page, "history").select_one("form")
    back = undo.find("input", attrs={"name": "back"})["value"]
    assert back == url
    undone = reviewer.submit(undo["action"], {"back": back}, page=url)
    assert undone.headers["Location"] == url
    assert flashes(reviewer.get(url)) == [
        "Undone — Lettuce ‘Maikönig’: Harvest method (the yield's context), Expected yield, "
        "Sources. History"
    ]


def test_a_batch_apply_is_undone_from_its_queue_not_from_one_culture(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    chosen = {"action": "apply_valid", "culture": [str(ids["Carrot"]), str(ids["Lettuce"])]}
    choose(reviewer, run, chosen | {"confirmed": "1"})
    history = by_id(reviewer.get(f"/cultures/{ids['Carrot']}"), "history")
    assert "Growth duration" in history.get_text() and history.select("form") == []


def test_crops_by_name_never_their_key(client_as, batch):
    _run, ids = batch
    viewer = client_as("viewer")
    listed = viewer.get("/cultures")
    assert "Dry bean" in listed.get_data(as_text=True)
    page = viewer.get(f"/cultures/{ids['Bean']}")
    assert "dry_bean" not in listed.get_data(as_text=True) + page.get_data(as_text=True)
    assert (
        by_id(page, "main").find("dt", string="Reference crop").find_next("dd").get_text()
        == "Dry bean, Phaseolus vulgaris"
    )


def test_a_fertilizer_plan_names_its_crop_as_the_library_does(client_as, app):
    editor = client_as("editor")
    profile = {"crop": {"crop_id": "winter_wheat", "name": "Winterweizen"}}
    answer = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": profile},
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    assert answer.status_code == 200, answer.get_json()
    page = editor.get(f"/fertilizer/plans/{answer.get_json()['plan_id']}")
    crop = by_id(page, "main").find("dt", string="Crop").find_next("dd").get_text(" ", strip=True)
    assert crop == "Winterweizen (in the reference library: Winter wheat)"
    assert "winter_wheat" not in page.get_data(as_text=True)


def test_the_check_page_says_ok_first_when_nothing_is_wrong(client_as, app):
    db.session.add(Culture(name="Carrot", distance_within_row_cm=5, row_spacing_cm=25))
    db.session.commit()
    page = client_as("viewer").get("/cultures/check")
    assert by_id(page, "verdict").get_text(" ", strip=True) == (
        "OK: no problems found in 1 culture(s)."
    )


def test_rejecting_every_matching_culture_asks_first(client_as, batch):
    run, _ids = batch
    reviewer = client_as("reviewer")
    asked = choose(reviewer, run, {"action": "reject", "all_matching": "1"})
    assert asked.status_code == 200
    assert (
        by_id(asked, "reject-count")
        .get_text(" ", strip=True)
        .startswith("7 suggestion(s) across 3 culture(s) will be rejected")
    )
    assert db.session.query(Suggestion).filter_by(status="rejected").count() == 0
    done = choose(reviewer, run, {"action": "reject", "all_matching": "1", "confirmed": "1"})
    assert flashes(reviewer.get(done.headers["Location"]))[0] == (
        "Rejected 7 suggestion(s) across 3 culture(s)."
    )


def test_left_to_decide_combines_with_a_level_in_the_queue_and_on_a_culture_page(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    for s in db.session.query(Suggestion).filter_by(target_id=ids["Lettuce"]):
        s.status = SuggestionStatus.rejected
    db.session.commit()
    queue = f"/cultures/runs/{run.id}/review"
    level = soup(reviewer.get(f"{queue}?level=none"))
    assert [a.get_text() for a in level.select("td[data-label=Culture] a")] == [
        "Carrot",
        "Lettuce ‘Maikönig’",
    ]
    pending = level.select_one("nav[aria-label=Filter]").find("a", string="left to decide")
    assert pending["href"] == f"{queue}?level=none&pending=1"

    both = reviewer.get(f"{queue}?level=none&pending=1")
    assert names_in(both) == ["Carrot"]  # Lettuce's are decided
    nav = soup(both).select_one("nav[aria-label=Filter]")
    assert [e.get_text() for e in nav.select("[aria-current]")] == [
        "without issues",
        "left to decide",
    ]
    assert {a.get_text(): a["href"] for a in nav.select("a")} == {
        "all": f"{queue}?pending=1",
        "with errors": f"{queue}?level=error&pending=1",
        "with warnings": f"{queue}?level=warning&pending=1",
        "with notes": f"{queue}?level=info&pending=1",
        "that found nothing": f"{queue}?level=nothing&pending=1",
        "decided ones too": f"{queue}?level=none",
    }
    form = soup(both).select_one("form[action$=apply-all]")
    hidden = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}
    assert (hidden["level"], hidden["pending"]) == ("none", "1")
    assert hidden["back"] == f"{queue}?level=none&pending=1"

    # A culture's page keeps both: its way back to the queue, its neighbours, its form's back.
    carrot = soup(reviewer.get(f"/cultures/{ids['Carrot']}?run={run.id}&level=none&pending=1"))
    link = carrot.select_one("nav.review-nav a.queue-link")
    assert link["href"] == f"{queue}?level=none&pending=1"
    assert link.get_text() == f"Queue of run #{run.id}: 1 culture(s) without issues left to decide"
    assert carrot.select_one("#enrichment form input[name=back]")["value"] == (
        f"/cultures/{ids['Carrot']}?run={run.id}&level=none&pending=1#enrichment"
    )
    lettuce = soup(reviewer.get(f"/cultures/{ids['Lettuce']}?run={run.id}&level=none&pending=1"))
    assert lettuce.select_one("nav.review-nav a[rel=prev]")["href"] == (
        f"/cultures/{ids['Carrot']}?run={run.id}&level=none&pending=1#enrichment"
    )
    assert lettuce.select_one("nav.review-nav a[rel=next]") is None


def test_an_address_of_before_level_redirects_to_the_same_cultures(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    queue = f"/cultures/runs/{run.id}/review"
    culture = f"/cultures/{ids['Bean']}"
    moved = {
        "errors": "level=error",
        "warnings": "level=warning",
        "notes": "level=info",
        "clean": "level=none",
        "nothing": "level=nothing",
        "pending": "pending=1",
    }
    for old, new in moved.items():
        for address, kept in ((queue, "page=1"), (culture, f"run={run.id}")):
            answer = reviewer.get(f"{address}?{kept}&show={old}")
            assert answer.status_code == 302, (address, old)
            assert answer.headers["Location"] == f"{address}?{kept}&{new}"
    assert names_in(reviewer.get(f"{queue}?show=notes", follow_redirects=True)) == [
        "Dragonfruit",
        "Bean",
    ]
    # A ?show= it never had leads to every culture.
    assert reviewer.get(f"{queue}?show=bogus").headers["Location"] == queue


def test_all_matching_decides_exactly_the_cultures_the_filter_lists(client_as, batch):
    run, ids = batch
    reviewer = client_as("reviewer")
    suggestion_of(ids["Bean"], "row_spacing_cm").status = SuggestionStatus.rejected
    db.session.commit()
    queue = f"/cultures/runs/{run.id}/review?pending=1"
    page = soup(reviewer.get(queue))
    assert [a.get_text() for a in page.select("td[data-label=Culture] a")] == [
        "Carrot",
        "Lettuce ‘Maikönig’",
    ]
    form = page.select_one("form[action$=apply-all]")
    data = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}
    confirm = reviewer.submit(form["action"], data | {"all_matching": "1"}, page=queue)
    assert confirm.status_code == 200
    assert "2 culture(s) chosen" in by_id(confirm, "main").get_text(" ")
    # Bean, decided, is no culture the filter lists: not counted as already decided.
    assert counts_of(confirm) == {
        "Will be applied": "5",
        "Skipped: invalid": "1",
        "Skipped: already applied or rejected": "0",
        "Skipped: changed since the run": "0",
    }
    carried = {i["name"]: i["value"] for i in soup(confirm).select("form input[type=hidden]")}
    applied = reviewer.submit(form["action"], carried, page=queue)
    assert applied.status_code == 302 and applied.headers["Location"].startswith(queue + "&undo=")
    changed = {(c.target_id, c.field) for c in db.session.query(Change).filter_by(source="apply")}
    assert {culture for culture, _field in changed} == {ids["Carrot"], ids["Lettuce"]}
    assert {f for c, f in changed if c == ids["Carrot"]} >= {
        "growth_duration_days",
        "row_spacing_cm",
    }


def test_all_matching_at_a_level_decides_the_cultures_listed_whole(client_as, batch):
    """On the queue a level picks cultures: all matching "without issues" rejects what those
    cultures left open, their warned fields too; the cultures not listed keep theirs."""
    run, ids = batch
    reviewer = client_as("reviewer")
    queue = f"/cultures/runs/{run.id}/review?level=none"
    form = soup(reviewer.get(queue)).select_one("form[action$=apply-all]")
    data = {i["name"]: i["value"] for i in form.select("input[type=hidden]")}
    rejected = reviewer.submit(
        f"/review/runs/{run.id}/reject-all", data | {"all_matching": "1", "confirmed": "1"}
    )
    # Back to the queue, which offers to undo the rejection.
    assert rejected.headers["Location"].startswith(queue + "&undo=")
    undo = soup(reviewer.get(rejected.headers["Location"])).select_one("form.undo-form")
    assert undo.button.get_text() == "Undo this rejection"
    decided = {
        s.target_id
        for s in db.session.query(Suggestion).filter_by(status=SuggestionStatus.rejected)
    }
    assert decided == {ids["Carrot"], ids["Lettuce"]}
    still_open = db.session.query(Suggestion).filter(
        Suggestion.target_id.in_([ids["Carrot"], ids["Lettuce"]]),
        Suggestion.status.in_(("pending", "stale")),
    )
    assert still_open.count() == 0
