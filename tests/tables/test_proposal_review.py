"""Reviewing a table run's proposal on the review core's run page for hours: pages of 50 rows,
counts by level over the whole run (each a filter that keeps paging), the rows it proposed
nothing for under their own filter, stale rows shown before apply, reject selected, apply all
valid through a confirm page, undo from the review and from a row's history, refusals and run
items named by the rows' labels."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select, update

from tests.support.html import by_id, counts_of, soup
from tests.support.tables import make_table, run_here
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.review.models import Change, Suggestion
from webapp.review.vocabulary import worst_level
from webapp.tables.models import ResearchLogEntry, TableRow
from webapp.tables.runs import start_enrichment

PLOTS = 120
FORMULA = "round({Yield} / {Area}, 2)"


def plot(n: int) -> str:
    return f"Plot {n:03d}"


@pytest.fixture
def plots(app):
    rows = [{"Plot": plot(n), "Area": n % 7 + 1, "Yield": n % 30 + 5} for n in range(1, PLOTS + 1)]
    rows[6]["Area"] = 0  # Plot 007: a division by zero, the row fails
    rows[7]["Yield"] = None  # Plot 008: nothing to compute from, skipped
    return make_table(
        "Plots",
        [
            ("Plot", "text"),
            ("Area", "number"),
            ("Yield", "number"),
            ("Per ha", "number", [], "t/ha"),
        ],
        rows,
    )


@pytest.fixture
def run(plots, make_user, idle_queue) -> Run:
    """A finished computation over every plot: 118 suggestions, a failed and a skipped row."""
    editor = make_user("editor")
    return run_here(
        start_enrichment(plots, "Per ha", "computation", {"formula": FORMULA}, None, editor)
    )


def row_ids(table) -> dict[str, int]:
    key = table.column_named("Plot").key
    return {r.cells[key]: r.id for r in db.session.scalars(select(TableRow))}


def suggestion_of(run: Run, row_id: int) -> Suggestion:
    return db.session.scalar(
        select(Suggestion).where(Suggestion.run_id == run.id, Suggestion.target_id == row_id)
    )


def mark(run: Run, table, names: list[str], severity: str) -> None:
    """Give these rows' suggestions an issue of this level, as a check of the column would;
    an error makes it invalid (blocked)."""
    ids = row_ids(table)
    issue = {"code": "checked", "severity": severity, "field": "", "message": f"A {severity}."}
    for name in names:
        db.session.execute(
            update(Suggestion)
            .where(Suggestion.run_id == run.id, Suggestion.target_id == ids[name])
            .values(
                issues=[issue],
                level=worst_level([issue]),
                status="blocked" if severity == "error" else "pending",
            )
        )
    db.session.commit()


def set_cell(table, name: str, column: str, value) -> None:
    row = db.session.get(TableRow, row_ids(table)[name])
    row.cells = {**row.cells, table.column_named(column).key: value}
    db.session.commit()


def review_url(run: Run, query: str = "") -> str:
    return f"/review/runs/{run.id}{query}"


def picked(run: Run, ids: dict[str, int], *numbers: int) -> list[str]:
    """The suggestion ids a review form sends for these plots."""
    return [str(suggestion_of(run, ids[plot(n)]).id) for n in numbers]


def row_of(page, run: Run, row_id: int):
    return by_id(page, f"suggestion-{suggestion_of(run, row_id).id}")


def shown_rows(page) -> list[str]:
    """The label of each row of the proposal table, in order."""
    return [tr.find_all("td")[1].get_text(strip=True) for tr in page.select("#proposal tbody tr")]


def link_args(link) -> dict[str, list[str]]:
    return parse_qs(urlsplit(link["href"]).query)


# The plots the run proposed a value for: 007 failed, 008 was skipped.
PROPOSED = [n for n in range(1, PLOTS + 1) if n not in (7, 8)]


def test_the_proposal_comes_fifty_rows_a_page_every_row_a_review_item_and_a_card(
    client_as, plots, run
):
    reviewer = client_as("reviewer")
    assert reviewer.get(f"/tables/{plots.id}/runs/{run.id}?level=info").headers["Location"] == (
        review_url(run, "?level=info")
    )
    first = soup(reviewer.get(review_url(run)))
    assert shown_rows(first) == [plot(n) for n in PROPOSED[:50]]
    table = by_id(first, "proposal")
    assert {"data", "review"} <= set(table["class"])
    rows = table.select("tbody tr")
    assert all("review-item" in tr["class"] for tr in rows)
    # On a phone each row is a card: every cell says what it is, the trace too.
    assert all(td.get("data-label") for tr in rows for td in tr.find_all("td", recursive=False))
    assert first.select_one("nav.pagination").get_text(" ", strip=True) == "Page 1 of 3 Next →"
    assert "found 118 of 120 rows" in by_id(first, "reasoning").get_text()
    nothing = by_id(first, "nothing-count").a
    assert nothing.get_text() == "2 row(s) with nothing proposed"
    unproposed = soup(reviewer.get(nothing["href"]))
    assert shown_rows(unproposed) == [plot(7), plot(8)]
    failed, skipped = unproposed.select("#proposal tbody tr")
    assert "division by zero" in failed.get_text() and "error" in failed.get_text()
    assert "Skipped" in skipped.get_text() and "skipped" in skipped.get_text()
    assert not unproposed.select("#proposal input")  # nothing there to apply

    last = soup(reviewer.get(review_url(run, "?page=3")))
    assert shown_rows(last) == [plot(n) for n in PROPOSED[100:]]
    assert link_args(last.select_one("nav.pagination a[rel=prev]")) == {"page": ["2"]}
    beyond = soup(reviewer.get(review_url(run, "?page=9")))
    assert by_id(beyond, "proposal").tbody.get_text(strip=True) == (
        "This page is past the last one: the review has 3 page(s)."
    )


def test_keys_select_buttons_and_the_actions_a_reviewer_presses(client_as, plots, run):
    page = soup(client_as("reviewer").get(review_url(run)))
    assert page.find("dialog", id="keys-help") and page.select_one("[data-open-keys]")
    form = by_id(page, "review-form")
    assert form.select_one(".select-buttons [data-select=all]")
    # In the review form: a form of its own there would end the review form where it ends.
    assert form.find("dialog", id="keys-help") and not form.select("dialog form")
    assert form.find("button", attrs={"data-key": "a"}).get_text() == "Apply selected"
    reject = form.find("button", attrs={"data-key": "r"})
    assert reject.get_text() == "Reject selected"
    assert reject["formaction"] == f"/review/runs/{run.id}/reject"
    assert by_id(page, "apply-all").get_text() == "Apply all 118 valid…"
    assert by_id(page, "reject-all")["href"].startswith(f"/review/runs/{run.id}/reject-all")
    editor = soup(client_as("editor").get(review_url(run)))
    assert not editor.find(id="apply-all") and not editor.select(".select-buttons")


def test_counts_by_worst_level_cover_the_whole_run_and_each_filters_across_pages(
    client_as, plots, run
):
    warned = [plot(n) for n in range(40, 101)]  # 61 rows: two pages at that level
    mark(run, plots, warned, "warning")
    mark(run, plots, [plot(2), plot(110)], "error")
    mark(run, plots, [plot(3)], "info")
    reviewer = client_as("reviewer")
    page = soup(reviewer.get(review_url(run)))
    counts = by_id(page, "level-counts")
    assert counts.get_text(" ", strip=True) == (
        "✖ 2 with errors ⚠ 61 with warnings ℹ 1 with notes ✓ 54 without issues"
    )
    links = {a.get_text(" ", strip=True): link_args(a) for a in counts.find_all("a")}
    assert links["⚠ 61 with warnings"] == {"level": ["warning"]}

    warnings = soup(reviewer.get(review_url(run, "?level=warning")))
    assert shown_rows(warnings) == warned[:50]
    assert {tr["data-level"] for tr in warnings.select("#proposal tbody tr")} == {"warning"}
    assert (
        by_id(warnings, "level-filter")
        .get_text(" ", strip=True)
        .startswith("Showing the suggestions with warnings: 61.")
    )
    following = warnings.select_one("nav.pagination a[rel=next]")
    assert link_args(following) == {"page": ["2"], "level": ["warning"]}
    second = soup(reviewer.get(following["href"]))
    assert shown_rows(second) == warned[50:]
    # Counts stay those of the whole run; "apply all" counts the valid ones at the level.
    assert "61 with warnings" in by_id(second, "level-counts").get_text(" ", strip=True)
    assert by_id(second, "apply-all").get_text() == "Apply all 61 valid here…"
    errors = soup(reviewer.get(review_url(run, "?level=error")))
    assert shown_rows(errors) == [plot(2), plot(110)]
    assert by_id(soup(reviewer.get(review_url(run, "?level=info&page=2"))), "proposal")
    assert not errors.find(id="apply-all")
    clean = soup(reviewer.get(review_url(run, "?level=none")))
    assert len(shown_rows(clean)) == 50 and plot(1) in shown_rows(clean)
    assert shown_rows(soup(reviewer.get(review_url(run, "?level=bogus")))) == shown_rows(
        soup(reviewer.get(review_url(run)))
    )


def test_a_row_whose_cell_changed_since_the_run_says_so_before_anyone_applies(
    client_as, plots, run
):
    set_cell(plots, plot(5), "Per ha", 9.99)
    page = soup(client_as("reviewer").get(review_url(run)))
    changed = row_of(page, run, row_ids(plots)[plot(5)])
    # Changed since the run: first on its page.
    assert shown_rows(page)[0] == plot(5)
    assert "changed" in changed["class"]
    assert "changed since the run" in changed.get_text()
    assert "was — when researched, now 9.99" in changed.get_text(" ", strip=True)
    assert changed.find("input", attrs={"name": "reconfirm"})
    assert not row_of(page, run, row_ids(plots)[plot(4)]).find("input", attrs={"name": "reconfirm"})


def test_reject_selected_rejects_the_chosen_rows_suggestions(client_as, plots, run):
    ids = row_ids(plots)
    chosen = {"suggestion": picked(run, ids, 1, 2), "back": review_url(run)}
    url = f"/review/runs/{run.id}/reject"
    assert client_as("editor").submit(url, chosen).status_code == 403
    reviewer = client_as("reviewer")
    rejected = reviewer.submit(url, chosen)
    assert rejected.status_code == 302
    back = rejected.headers["Location"]
    assert back.startswith(review_url(run)) and "undo=" in back
    statuses = {n: suggestion_of(run, ids[plot(n)]).status for n in (1, 2, 3)}
    assert statuses == {1: "rejected", 2: "rejected", 3: "pending"}
    page = soup(reviewer.get(back))
    assert "Rejected 2 row(s): Plot 001 and Plot 002." in page.get_text()
    assert "rejected" in row_of(page, run, ids[plot(1)]).get_text()
    again = reviewer.submit(url, chosen, follow_redirects=True).get_data(as_text=True)
    assert "Nothing was rejected: those are decided already." in again

    # The rejection is undone as an apply is, from the page it came back to.
    undo = by_id(page, "undo-form")
    assert undo.button.get_text() == "Undo this rejection"
    undone = reviewer.submit(undo["action"], {"back": review_url(run)}, page=back)
    assert undone.status_code == 302
    statuses = {n: suggestion_of(run, ids[plot(n)]).status for n in (1, 2, 3)}
    assert statuses == {1: "pending", 2: "pending", 3: "pending"}
    said = soup(reviewer.get(undone.headers["Location"])).get_text()
    # Each rejected suggestion by its row and column (in the order the run made them).
    [line] = re.findall(r"Undone — .*", said)
    assert sorted(line.removeprefix("Undone — ").rstrip(".").split("; ")) == [
        "Plot 001: Per ha",
        "Plot 002: Per ha",
    ]


@pytest.fixture
def mixed(client_as, plots, run) -> dict[str, int]:
    """Of 118 suggestions: 2 invalid, 1 applied and 1 rejected already, 2 whose cell changed
    since the run: 112 left to apply."""
    ids = row_ids(plots)
    mark(run, plots, [plot(2), plot(3)], "error")
    mark(run, plots, [plot(4)], "warning")
    reviewer = client_as("reviewer")
    base = f"/review/runs/{run.id}"
    assert reviewer.submit(f"{base}/apply", {"suggestion": picked(run, ids, 9)}).status_code == 302
    assert (
        reviewer.submit(f"{base}/reject", {"suggestion": picked(run, ids, 10)}).status_code == 302
    )
    set_cell(plots, plot(11), "Per ha", 1.0)
    set_cell(plots, plot(12), "Per ha", 2.0)
    reviewer.ids = ids
    return reviewer


def test_apply_all_confirm_page_counts_what_changes_and_what_is_skipped_and_why(mixed, plots, run):
    page = soup(mixed.get(review_url(run)))
    assert by_id(page, "apply-all").get_text() == "Apply all 114 valid…"
    confirm = soup(mixed.get(by_id(page, "apply-all")["href"]))
    assert counts_of(confirm) == {
        "Will be applied": "112",
        "Skipped: invalid": "2",
        "Skipped: already applied or rejected": "2",
        "Skipped: changed since the run": "2",
    }
    assert confirm.find("button", string="Apply 112 row(s)")
    at_warning = soup(mixed.get(f"/review/runs/{run.id}/apply-all?level=warning"))
    assert counts_of(at_warning)["Will be applied"] == "1"
    assert at_warning.find("input", attrs={"name": "level", "value": "warning"})


def test_apply_all_applies_exactly_the_valid_pending_rows_in_one_group_that_undo_takes_back(
    mixed, plots, run
):
    ids, per_ha = mixed.ids, plots.column_named("Per ha").key
    url = f"/review/runs/{run.id}/apply-all"
    applied = mixed.submit(url, {"confirmed": "1", "back": review_url(run)})
    assert applied.status_code == 302
    location = applied.headers["Location"]
    group = parse_qs(urlsplit(location).query)["undo"][0]
    changes = db.session.scalars(select(Change).where(Change.group_id == group)).all()
    by_plot = {v: k for k, v in ids.items()}
    changed = sorted(by_plot[c.target_id] for c in changes)
    skipped = {plot(n) for n in (2, 3, 7, 8, 9, 10, 11, 12)}
    assert changed == sorted(name for name in ids if name not in skipped)
    assert len(changed) == 112
    assert db.session.get(TableRow, ids[plot(11)]).cells[per_ha] == 1.0  # changed since: kept
    page = soup(mixed.get(location))
    text = page.get_text(" ", strip=True)
    assert "Applied 112 row(s)." in text
    assert "Left out: 2 invalid, 2 changed since the run (re-confirm them on its row)" in text
    # Those two wait for a person's re-confirm on their rows: nothing is left to apply all.
    assert not page.find(id="apply-all")
    confirm = soup(mixed.get(url))
    assert counts_of(confirm)["Will be applied"] == "0"
    assert counts_of(confirm)["Skipped: changed since the run"] == "2"
    undo = by_id(page, "undo-form")
    assert undo.button["data-key"] == "u"
    undone = mixed.submit(
        undo["action"], {"back": undo.find("input", attrs={"name": "back"})["value"]}
    )
    assert undone.status_code == 302 and undone.headers["Location"] == review_url(run)
    db.session.expire_all()
    assert per_ha not in db.session.get(TableRow, ids[plot(1)]).cells
    assert db.session.get(TableRow, ids[plot(9)]).cells[per_ha] is not None  # the earlier apply
    assert suggestion_of(run, ids[plot(1)]).status == "pending"


def test_apply_all_is_a_reviewers_act(client_as, plots, run):
    editor = client_as("editor")
    url = f"/review/runs/{run.id}/apply-all"
    assert editor.get(url).status_code == 403
    assert editor.submit(url, {}).status_code == 403
    assert db.session.scalar(select(Change.id)) is None


def test_refusals_redirect_back_to_the_page_and_name_rows_by_label(client_as, plots, run):
    ids = row_ids(plots)
    mark(run, plots, [plot(53)], "error")
    set_cell(plots, plot(54), "Per ha", 3.0)
    reviewer = client_as("reviewer")
    chosen = picked(run, ids, 52, 53, 54)
    url = f"/review/runs/{run.id}/apply"
    back = review_url(run, "?level=none&page=2")
    applied = reviewer.submit(url, {"suggestion": chosen, "back": back})
    assert applied.status_code == 302
    assert parse_qs(urlsplit(applied.headers["Location"]).query).keys() == {"page", "level", "undo"}
    text = soup(reviewer.get(applied.headers["Location"])).get_text(" ", strip=True)
    assert "Applied Per ha of Plot 052." in text
    assert "Not applied — Per ha of Plot 053: Invalid, so it cannot be applied: A error." in text
    assert (
        "Not applied — Per ha of Plot 054: The field changed after this suggestion was made" in text
    )
    assert f"Row {ids[plot(53)]}" not in text


def test_a_rows_history_undoes_each_apply_still_undoable(client_as, plots, run):
    ids = row_ids(plots)
    reviewer = client_as("reviewer")
    base = f"/review/runs/{run.id}/apply"
    assert reviewer.submit(base, {"suggestion": picked(run, ids, 1, 2)}).status_code == 302
    history_url = f"/tables/{plots.id}/rows/{ids[plot(1)]}/history"
    page = soup(reviewer.get(history_url))
    assert page.h1.get_text() == "History of Plot 001"
    (button,) = by_id(page, "history").select("form button")
    assert button.get_text() == "Undo" and button["data-key"] == "u"
    form = button.find_parent("form")
    assert form.find("input", attrs={"name": "back"})["value"] == history_url
    assert not soup(client_as("editor").get(history_url)).select("#history form")
    undone = reviewer.submit(form["action"], {"back": history_url})
    assert undone.status_code == 302 and undone.headers["Location"] == history_url
    db.session.expire_all()
    per_ha = plots.column_named("Per ha").key
    assert per_ha not in db.session.get(TableRow, ids[plot(2)]).cells
    after = soup(reviewer.get(history_url))
    assert "Undone — Plot 001: Per ha; Plot 002: Per ha." in after.get_text()
    assert not by_id(after, "history").select("form")  # the apply and its undo: nothing left


def test_a_manual_edit_after_an_apply_leaves_it_not_undoable_from_the_history(
    client_as, plots, run
):
    ids = row_ids(plots)
    reviewer = client_as("reviewer")
    applied = reviewer.submit(f"/review/runs/{run.id}/apply", {"suggestion": picked(run, ids, 1)})
    assert applied.status_code == 302
    per_ha = plots.column_named("Per ha")
    edit = f"/tables/{plots.id}/rows/{ids[plot(1)]}/cells/{per_ha.id}"
    saved = reviewer.submit(edit, {f"edit-{ids[plot(1)]}-c{per_ha.id}": "7"})
    assert saved.status_code == 200, saved.get_data(as_text=True)
    history = soup(reviewer.get(f"/tables/{plots.id}/rows/{ids[plot(1)]}/history"))
    assert len(by_id(history, "history").select("tbody tr")) == 2
    assert not by_id(history, "history").select("form")


def test_the_run_page_names_rows_by_their_label(client_as, plots, run):
    page = soup(client_as("viewer").get(f"/runs/{run.id}"))
    results = by_id(page, "results")
    cells = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in results.tbody("tr")]
    assert cells == [["Plot 007", "—", "division by zero"]]
    db.session.execute(
        update(Run)
        .where(Run.id == run.id)
        .values(item_errors={str(row_ids(plots)[plot(20)]): "Lost."})
    )
    db.session.commit()
    page = soup(client_as("viewer").get(f"/runs/{run.id}"))
    names = [tr.td.get_text(strip=True) for tr in by_id(page, "results").tbody("tr")]
    assert names == ["Plot 020", "Plot 007"]


def test_a_running_runs_log_shows_only_its_newest_rows(client_as, plots, run):
    db.session.execute(update(Run).where(Run.id == run.id).values(status=RunStatus.running))
    db.session.commit()
    page = soup(client_as("viewer").get(review_url(run)))
    log = by_id(page, "research-log").select("tbody tr")
    assert len(log) == 50
    newest = db.session.scalar(
        select(ResearchLogEntry.entry)
        .where(ResearchLogEntry.run_id == run.id)
        .order_by(ResearchLogEntry.id.desc())
    )
    assert log[0].td.get_text() == newest["label"]
    assert by_id(page, "log-extent").get_text(strip=True).startswith("The latest 50 of 120 rows")
    assert not page.find(id="proposal")


def test_a_long_suggested_number_reads_to_three_figures(client_as, plots, run):
    ids = row_ids(plots)
    decided, still_open = suggestion_of(run, ids[plot(1)]), suggestion_of(run, ids[plot(2)])
    decided.suggested_value = still_open.suggested_value = 5.942857143
    decided.status = "rejected"
    db.session.commit()
    page = soup(client_as("reviewer").get(review_url(run)))
    shown = row_of(page, run, ids[plot(1)]).get_text(" ", strip=True)
    assert "5.94 t/ha" in shown and "5.942857143" not in shown
    # What a reviewer may edit and apply keeps every digit.
    box = row_of(page, run, ids[plot(2)]).find("input", attrs={"name": f"value-{still_open.id}"})
    assert box["value"] == "5.942857143"


def test_the_rows_a_lookup_found_nothing_for_are_counted_and_listed_alone(
    app, client_as, make_user, idle_queue
):
    crops = make_table(
        "Crops",
        [("Item", "text"), ("Growing period", "number", [], "days")],
        [{"Item": item} for item in ("Maize", "Sorghum", "Wheat", "Cassava", None)],
    )
    question = {"question": "How many days is the growing period of {Item}?"}
    lookup = run_here(
        start_enrichment(crops, "Growing period", "lookup", question, None, make_user("editor"))
    )
    reviewer = client_as("reviewer")
    page = soup(reviewer.get(review_url(lookup)))
    assert by_id(page, "nothing-count").a.get_text() == "3 row(s) with nothing proposed"
    chips = {a.get_text(" ", strip=True): a["href"] for a in by_id(page, "nothing-statuses")("a")}
    assert list(chips) == ["not found 2", "skipped 1"]
    not_found = soup(reviewer.get(chips["not found 2"]))
    assert shown_rows(not_found) == ["Sorghum", "Cassava"]
    assert (
        by_id(not_found, "level-filter")
        .get_text(" ", strip=True)
        .startswith("Showing what was proposed nothing for, not found: 2.")
    )
    chosen = by_id(not_found, "nothing-statuses").find("a", attrs={"aria-current": True})
    assert chosen.get_text(" ", strip=True) == "not found 2"
    # the chosen chip's link shows every row with nothing proposed again
    assert len(shown_rows(soup(reviewer.get(chosen["href"])))) == 3
    # a status the run has none of is no filter
    assert shown_rows(soup(reviewer.get(review_url(lookup, "?level=nothing&status=error")))) == (
        shown_rows(soup(reviewer.get(review_url(lookup, "?level=nothing"))))
    )
