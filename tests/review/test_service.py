"""The review core on its own: a small target of the tests' own (values in a dict, a rule that
refuses negative numbers) and a decision target that writes nothing, through the service and
the one API."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pytest
from sqlalchemy import update

from webapp.extensions import db
from webapp.jobs.kinds import RunKind, register_kind
from webapp.jobs.models import Run, RunStatus
from webapp.review import rejections, service
from webapp.review.audit import latest_changes, record_changes, undoable_groups
from webapp.review.models import Change, Finding, Suggestion, SuggestionStatus
from webapp.review.targets import ReviewTarget, register_target
from webapp.review.vocabulary import Evidence, Proposal, Severity, SourceKind, SuggestedValue


class Sheet(ReviewTarget):
    """Records are dicts; a negative number is refused, as a workspace's field rule would."""

    kind = "test_sheet"
    label = "Sheet"

    def __init__(self) -> None:
        self.records: dict[int, dict[str, Any]] = {}
        self.undone: list[set[int]] = []  # the records each undo restored, as the hook hears

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: dict(self.records[i]) for i in ids if i in self.records}

    def write(self, target_id: int, values: Mapping[str, Any], user) -> dict[str, tuple[Any, Any]]:
        negative = {f: "Must not be negative." for f, v in values.items() if (v or 0) < 0}
        if negative:
            error = ValueError("refused")
            error.errors = negative
            raise error
        record = self.records[target_id]
        changed = {f: (record.get(f), v) for f, v in values.items() if record.get(f) != v}
        record.update(values)
        return changed

    def parse(self, field: str, raw: str) -> Any:
        return float(raw)  # ValueError for what is not a number

    def after_undo(self, ids: Collection[int]) -> None:
        self.undone.append(set(ids))


class Verdicts(ReviewTarget):
    kind = "test_requirement"
    label = "Requirement"
    writes = False


SHEET = register_target(Sheet())
VERDICTS = register_target(Verdicts())


@register_kind
class SheetRun(RunKind):
    name = "test_sheet_run"
    title = "Sheet run"
    target_kind = Sheet.kind

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(i) for i in params["ids"]]

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        return {}


@pytest.fixture
def sheet(app):
    SHEET.records = {1: {"depth": 2.0}, 2: {"depth": 5.0}}
    SHEET.undone = []
    run = Run(
        kind=SheetRun.name,
        title="t",
        items=["1", "2"],
        done_items=["1", "2"],
        total=2,
        done=2,
        status=RunStatus.succeeded,
    )
    db.session.add(run)
    db.session.commit()
    return run


def propose(run: Run, target_id: int, **values: Any) -> dict[str, int]:
    proposal = Proposal(suggested={f: SuggestedValue(v) for f, v in values.items()})
    if values.get("width", 0) > 100:
        proposal.add("too_wide", Severity.error, "width", "Wider than any bed.")
    proposal.add("seen_twice", Severity.warning, None, "The record appears twice.")
    record = SHEET.records[target_id]
    unattached = service.store_proposal(run.id, Sheet.kind, target_id, record, proposal)
    service.store_findings(run.id, Sheet.kind, [target_id], unattached)
    db.session.flush()
    rows = db.session.query(Suggestion).filter_by(run_id=run.id, target_id=target_id)
    return {s.field: s.id for s in rows}


def status(suggestion_id: int) -> str:
    return db.session.get(Suggestion, suggestion_id).status


def test_apply_writes_audits_and_refuses_with_one_shape(sheet):
    mine = propose(sheet, 1, depth=3.0, width=150, height=-1)
    result = service.apply(mine.values(), None)
    assert result.applied_fields == ["depth"] and SHEET.records[1]["depth"] == 3.0
    assert {r.to_dict()["field"]: r.to_dict()["code"] for r in result.refused} == {
        "width": "invalid_suggestion",
        "height": "invalid_value",
    }
    assert result.refused[-1].to_dict() == {
        "suggestion": mine["height"],
        "target": {"type": "test_sheet", "id": 1},
        "field": "height",
        "code": "invalid_value",
        "message": "Must not be negative.",
    }
    assert status(mine["depth"]) == SuggestionStatus.applied
    assert status(mine["width"]) == SuggestionStatus.blocked
    change = db.session.query(Change).one()
    assert (change.field, change.old_value, change.new_value, change.suggestion_id) == (
        "depth",
        2.0,
        3.0,
        mine["depth"],
    )
    [finding] = db.session.query(Finding).all()
    assert (finding.target_ids, finding.code) == ([1], "seen_twice")


def test_stale_reconfirm_edit_reject_and_undo(sheet):
    mine = propose(sheet, 2, depth=6.0, width=150)
    SHEET.records[2]["depth"] = 7.0  # someone changed it after the run
    stale = service.apply([mine["depth"]], None)
    assert [r.code for r in stale.refused] == ["stale_suggestion"]
    assert status(mine["depth"]) == SuggestionStatus.stale
    edited = service.apply(
        [mine["depth"], mine["width"]],
        None,
        reconfirm=[mine["depth"]],
        edits={mine["width"]: "80"},
    )
    assert sorted(edited.applied_fields) == ["depth", "width"]
    assert SHEET.records[2] == {"depth": 6.0, "width": 80.0}
    assert service.apply([mine["depth"]], None).refused[0].code == "not_open"
    undone = service.undo(edited.group, None)
    assert sorted(undone.restored) == ["depth", "width"] and undone.group
    assert SHEET.records[2] == {"depth": 7.0, "width": None}
    assert status(mine["depth"]) == status(mine["width"]) == SuggestionStatus.pending
    rejected = rejections.reject([mine["depth"], mine["depth"]], None)
    assert rejected.ids == [mine["depth"]] and rejected.group
    assert status(mine["depth"]) == SuggestionStatus.rejected
    # A rejection is undone as an apply is: the suggestion is open again, undecided.
    assert service.undoable_group(rejected.group).target.kind == "suggestion"
    back = service.undo(rejected.group, None)
    assert back.restored == ["status"] and not back.changed_since
    assert status(mine["depth"]) == SuggestionStatus.pending
    # Rejected again and applied meanwhile is not possible; decided since, it stays decided.
    again = rejections.reject([mine["depth"]], None)
    assert rejections.reject([mine["depth"]], None).ids == []
    db.session.execute(
        update(Suggestion).where(Suggestion.id == mine["depth"]).values(status="applied")
    )
    assert service.undo(again.group, None).changed_since == ["status"]
    assert status(mine["depth"]) == SuggestionStatus.applied


def test_an_edit_the_field_cannot_read_is_refused_and_nothing_changes(sheet):
    mine = propose(sheet, 1, width=150)
    result = service.apply([mine["width"]], None, edits={mine["width"]: "wide"})
    assert [r.code for r in result.refused] == ["invalid_value"] and result.group is None
    assert status(mine["width"]) == SuggestionStatus.blocked


def test_undo_refuses_when_a_value_changed_since(sheet):
    mine = propose(sheet, 1, depth=3.0)
    group = service.apply([mine["depth"]], None).group
    SHEET.records[1]["depth"] = 9.0
    assert service.undo(group, None).changed_since == ["depth"]
    assert SHEET.records[1]["depth"] == 9.0
    assert SHEET.undone == []  # nothing restored, nothing to bring up to date


def test_a_target_hears_which_records_an_undo_restored(sheet):
    one, two = propose(sheet, 1, depth=3.0), propose(sheet, 2, depth=6.0)
    group = service.apply([one["depth"], two["depth"]], None).group
    assert service.undo(group, None).restored == ["depth", "depth"]
    assert SHEET.undone == [{1, 2}]


def test_a_decision_writes_nothing_and_is_undone_from_the_audit_trail(app, make_user):
    user = make_user("reviewer")
    first = service.decide(VERDICTS, 7, "REQ-001", "met", "Page 4 shows it.", user)
    assert VERDICTS.current([7]) == {7: {"REQ-001": "met"}}
    second = service.decide(VERDICTS, 7, "REQ-001", "not_met", "The map is missing.", user)
    change = db.session.query(Change).filter_by(group_id=second).one()
    assert (change.old_value, change.new_value, change.comment, change.source) == (
        "met",
        "not_met",
        "The map is missing.",
        "decide",
    )
    assert service.undo(second, user).restored == ["REQ-001"]
    assert VERDICTS.current([7]) == {7: {"REQ-001": "met"}}
    assert service.undo(first, user).restored == ["REQ-001"]  # the value is "met" again
    assert VERDICTS.current([7]) == {7: {"REQ-001": None}}
    with pytest.raises(ValueError):
        service.decide(SHEET, 1, "depth", 1.0, "", user)


def test_the_one_api_lists_applies_rejects_and_undoes(sheet, client_as):
    mine = propose(sheet, 1, depth=3.0, width=150)
    other = propose(sheet, 2, depth=4.0)
    db.session.commit()
    reviewer = client_as("reviewer")
    headers = {"X-CSRFToken": reviewer.csrf_token("/")}
    listed = reviewer.get(f"/api/v1/runs/{sheet.id}/suggestions").get_json()
    assert [(t["id"], t["state"]) for t in listed["targets"]] == [(1, "done"), (2, "done")]
    first = listed["targets"][0]
    assert {s["field"]: s["id"] for s in first["suggestions"]} == mine
    assert [f["code"] for f in first["findings"]] == ["seen_twice"]
    assert [e["code"] for e in first["validation"]["errors"]] == ["too_wide"]
    editor = client_as("editor")
    forbidden = editor.post(
        f"/api/v1/runs/{sheet.id}/apply",
        json={"all_valid": True},
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    assert forbidden.status_code == 403
    applied = reviewer.post(
        f"/api/v1/runs/{sheet.id}/apply", json={"all_valid": True}, headers=headers
    )
    body = applied.get_json()
    assert applied.status_code == 200
    assert sorted(body["applied"]) == sorted([mine["depth"], other["depth"]])
    assert SHEET.records == {1: {"depth": 3.0}, 2: {"depth": 4.0}}
    rejected = reviewer.post(
        f"/api/v1/runs/{sheet.id}/reject",
        json={"suggestions": [mine["width"], 999999]},
        headers=headers,
    ).get_json()
    assert rejected["rejected"] == [mine["width"]]
    assert rejected["refused"][0]["code"] == "no_suggestion"
    bad = reviewer.post(
        f"/api/v1/runs/{sheet.id}/apply", json={"suggestions": "all"}, headers=headers
    )
    assert bad.status_code == 422 and bad.get_json()["error"]["message"]
    undone = reviewer.post(f"/api/v1/undo/{body['undo_group']}", headers=headers)
    assert undone.status_code == 200
    assert SHEET.records == {1: {"depth": 2.0}, 2: {"depth": 5.0}}
    again = reviewer.post(f"/api/v1/undo/{body['undo_group']}", headers=headers)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "changed_since"
    missing = reviewer.post("/api/v1/undo/nosuchgroup", headers=headers)
    assert missing.status_code == 404


def test_evidence_keeps_where_it_stands_and_the_values_it_states(sheet, client_as):
    cited = Evidence(
        "",
        "Project plan",
        "The project ID is C02-001.",
        SourceKind.document,
        locator={"document": "plan.pdf", "page": 4, "section": "1.2"},
        fields={"project_id": "C02-001"},
    )
    assert Evidence(**cited.to_dict()) == cited
    proposal = Proposal(suggested={"depth": SuggestedValue(4.0)}, evidence={"depth": [cited]})
    service.store_proposal(sheet.id, Sheet.kind, 1, SHEET.records[1], proposal)
    db.session.commit()
    listed = client_as("viewer").get(f"/api/v1/runs/{sheet.id}/suggestions").get_json()
    [evidence] = listed["targets"][0]["suggestions"][0]["evidence"]
    assert evidence["locator"] == {"document": "plan.pdf", "page": 4, "section": "1.2"}
    assert evidence["fields"] == {"project_id": "C02-001"}


def test_a_page_sees_a_stale_suggestion_before_anyone_applies_it(sheet):
    mine = propose(sheet, 2, depth=6.0)
    SHEET.records[2]["depth"] = 7.0
    [suggestion] = db.session.query(Suggestion).filter_by(id=mine["depth"]).all()
    assert not suggestion.looked_up
    service.look_up_now([suggestion])
    assert (suggestion.looked_up, suggestion.now, suggestion.changed_since) == (True, 7.0, True)
    assert suggestion.current_value == 5.0 and suggestion.status == SuggestionStatus.pending
    SHEET.records[2]["depth"] = 5.0
    service.look_up_now([suggestion])
    assert (suggestion.now, suggestion.changed_since) == (5.0, False)


def test_history_offers_undo_for_group_ids_nothing_changed_since(sheet):
    first = propose(sheet, 1, depth=3.0)
    applied = service.apply([first["depth"]], None).group
    second = propose(sheet, 2, depth=8.0)
    later = service.apply([second["depth"]], None).group
    changes = db.session.query(Change).order_by(Change.id.desc()).all()
    assert undoable_groups(changes, ("apply",)) == [later, applied]
    undone = service.undo(later, None).group
    changes = db.session.query(Change).order_by(Change.id.desc()).all()
    # The undone group changed since (its undo did); an undo is not itself offered.
    assert undoable_groups(changes, ("apply",)) == [applied]
    assert undone not in undoable_groups(changes, ("apply",))


def test_a_suggestion_keeps_its_worst_level_stored_and_an_edit_clears_it(sheet):
    mine = propose(sheet, 1, depth=3.0, width=150)
    db.session.add(
        Suggestion(
            run_id=sheet.id,
            target_type=Sheet.kind,
            target_id=2,
            field="depth",
            issues=[{"severity": "info", "message": "A note."}],
        )
    )
    db.session.flush()
    levels = {
        (s.target_id, s.field): s.level
        for s in db.session.query(Suggestion).filter_by(run_id=sheet.id)
    }
    # Stored by store_proposal (the warning is a finding of the record, not the field's).
    assert levels == {(1, "depth"): None, (1, "width"): "error", (2, "depth"): "info"}
    service.apply([mine["width"]], None, edits={mine["width"]: "80"})
    db.session.expire_all()
    assert db.session.get(Suggestion, mine["width"]).level is None


def test_one_write_path_records_changes_and_reads_the_newest_of_each_field(sheet, make_user):
    user = make_user("editor")
    group = record_changes(Sheet.kind, 1, {"depth": (2.0, 3.0)}, user, "manual", sheet.id)
    again = record_changes(Sheet.kind, 1, {"depth": (3.0, 4.0), "width": (None, 1.0)}, None, "x")
    assert record_changes(Sheet.kind, 1, {}, user, "manual", group=group) == group  # nothing
    first = db.session.query(Change).filter_by(group_id=group).one()
    assert (first.user_id, first.source, first.run_id, first.comment, first.suggestion_id) == (
        user.id,
        "manual",
        sheet.id,
        None,
        None,
    )
    assert first.at is not None and again != group
    newest = latest_changes(Sheet.kind, [1, 2])
    assert {f: c.new_value for f, c in newest[1].items()} == {"depth": 4.0, "width": 1.0}
    assert newest[2] == {} and list(latest_changes(Sheet.kind, [1], "width")[1]) == ["width"]


def test_stored_suggestions_answer_their_ids_in_order_when_asked(sheet):
    rows = [
        {"run_id": sheet.id, "target_type": Sheet.kind, "target_id": 1, "field": f}
        | {"current_value": None, "suggested_value": n}
        for n, f in enumerate(["depth", "width", "length"])
    ]
    ids = service.store_suggestions(rows, with_ids=True)
    assert [db.session.get(Suggestion, i).field for i in ids] == ["depth", "width", "length"]
    assert service.store_suggestions(rows[:1]) == []  # the bulk path answers no ids
