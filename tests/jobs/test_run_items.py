"""A run's JSON stays small whatever its size (it is polled while the run works); its items are
paged through GET /api/v1/runs/<id>/items, with the run's own access rule."""

from webapp.extensions import db
from webapp.jobs.models import ChunkStatus, Run, RunChunk, RunStatus
from webapp.tables.models import ResearchLogEntry

POLL_BYTES = 5000


def many_items_run(user, count=20_000, **values):
    """A run over count items, all done but every 1,000th, which failed; its params list every
    item too."""
    keys = [f"item-{n}" for n in range(count)]
    failed = {key: f"{key} could not be read." for key in keys[::1000]}
    run = Run(
        **{
            "kind": "test_gated",
            "title": "Gated test items",
            "requested_by": user,
            "status": RunStatus.completed_with_errors,
            "params": {"count": count, "gate_dir": "/tmp/gates", "keys": keys},
            "items": keys,
            "total": count,
            "done": count,
            "done_items": keys,
            "item_errors": failed,
            "results": {key: {"item": key} for key in keys if key not in failed},
            **values,
        }
    )
    db.session.add(run)
    db.session.commit()
    return run


def test_the_poll_of_a_run_of_many_items_is_small_and_counts_them(client_as):
    client = client_as("viewer")
    run = many_items_run(client.user)
    response = client.get(f"/api/v1/runs/{run.id}")
    assert response.status_code == 200 and len(response.data) < POLL_BYTES
    body = response.get_json()
    assert "results" not in body and "item_errors" not in body
    assert body["items"] == {
        "total": 20_000,
        "done": 20_000,
        "with_errors": 20,
        "url": f"/api/v1/runs/{run.id}/items",
    }
    # The small params stay; the list of every item is counted.
    assert body["params"] == {"count": 20_000, "gate_dir": "/tmp/gates"}
    assert body["params_counts"] == {"keys": 20_000}
    assert body["progress"]["percent"] == 100 and body["can_resume"] is True
    listed = client.get("/api/v1/runs").get_json()
    assert len(client.get("/api/v1/runs").data) < POLL_BYTES
    assert listed["runs"][0]["items"]["with_errors"] == 20


def test_a_table_run_polls_small_with_its_rows_by_status(client_as, make_user):
    client = client_as("viewer")
    row_ids = list(range(1, 100_001))
    run = Run(
        kind="table_enrichment",
        title="Fill ‘Yield’ in Fields (100,000 rows) · Lookup",
        requested_by=client.user,
        status=RunStatus.running,
        params={
            "table_id": 1,
            "column_id": 2,
            "strategy": "lookup",
            "params": {"question": "What is the yield of {Crop}?"},
            "row_ids": row_ids,
            "provider": "offline",
            "reasoning": "Looks the yield up.",
        },
        items=[str(i) for i in row_ids],
        total=len(row_ids),
        done=60_000,
        results={"found": 59_000, "not_found": 990, "error": 10},
        item_errors={"7": "The row was deleted."},
    )
    db.session.add(run)
    db.session.flush()
    entry = {"status": "found", "value": 7.5, "confidence": "high", "steps": [{"type": "answer"}]}
    db.session.add(
        ResearchLogEntry(run_id=run.id, row_id=3, position=2, status="found", entry=entry)
    )
    db.session.commit()

    response = client.get(f"/api/v1/runs/{run.id}")
    assert len(response.data) < POLL_BYTES
    body = response.get_json()
    assert body["params"]["params"] == {"question": "What is the yield of {Crop}?"}
    assert body["params"]["strategy"] == "lookup" and "row_ids" not in body["params"]
    assert body["params_counts"] == {"row_ids": 100_000}
    assert body["items"]["with_errors"] == 11  # the item error, and the rows whose lookup failed
    assert body["items"]["by_status"] == {"found": 59_000, "not_found": 990, "error": 10}

    page = client.get(f"/api/v1/runs/{run.id}/items?per_page=3").get_json()
    assert (page["total"], page["pages"]) == (100_000, 33_334)
    first, _second, third = page["items"]
    assert first == {"key": "1", "status": "pending", "result": None, "error": None}
    # A row's research-log entry is its result, without its trace of steps.
    assert third["result"] == {"status": "found", "value": 7.5, "confidence": "high"}
    seventh = client.get(f"/api/v1/runs/{run.id}/items?page=3&per_page=3").get_json()["items"][0]
    assert (seventh["key"], seventh["status"]) == ("7", "failed")
    assert seventh["error"] == "The row was deleted."


def test_the_items_page_through_every_item_once(client_as):
    client = client_as("viewer")
    keys = [f"item-{n}" for n in range(1_234)]
    run = Run(
        kind="test_gated",
        title="Gated test items",
        requested_by=client.user,
        status=RunStatus.running,
        items=keys,
        total=len(keys),
        done=600,
        done_items=keys[:500],
        item_errors={"item-3": "No gate.", "item-700": "No gate either."},
        results={key: {"item": key} for key in keys[:500] if key != "item-3"},
    )
    db.session.add(run)
    db.session.flush()
    # A chunk's finished items count as done before they are folded into the run's.
    db.session.add(
        RunChunk(
            run_id=run.id,
            position=1,
            items=keys[500:],
            done=100,
            done_items=[*keys[500:600], "item-700"],
            status=ChunkStatus.running,
        )
    )
    db.session.commit()

    seen, number = [], 1
    while True:
        page = client.get(f"/api/v1/runs/{run.id}/items?page={number}&per_page=500").get_json()
        assert (page["run_id"], page["total"], page["pages"]) == (run.id, 1_234, 3)
        seen.extend(page["items"])
        if number == page["pages"]:
            break
        number += 1
    assert [item["key"] for item in seen] == keys
    by_key = {item["key"]: item for item in seen}
    assert by_key["item-0"] == {
        "key": "item-0",
        "status": "done",
        "result": {"item": "item-0"},
        "error": None,
    }
    assert by_key["item-3"] == {
        "key": "item-3",
        "status": "failed",
        "result": None,
        "error": "No gate.",
    }
    assert by_key["item-550"]["status"] == "done"  # the chunk's, not yet the run's
    assert by_key["item-700"]["status"] == "failed"
    assert by_key["item-1233"]["status"] == "pending"
    statuses = [item["status"] for item in seen]
    assert (statuses.count("done"), statuses.count("failed")) == (599, 2)

    past = client.get(f"/api/v1/runs/{run.id}/items?page=99").get_json()
    assert past["items"] == [] and past["total"] == 1_234
    default = client.get(f"/api/v1/runs/{run.id}/items").get_json()
    assert default["per_page"] == 100 and len(default["items"]) == 100


def test_the_items_of_a_run_follow_the_runs_access(client, client_as):
    editor = client_as("editor")
    secret = Run(
        kind="registry_review",
        title="Assess ‘Denman farm’",
        requested_by=editor.user,
        items=["doc:1:land-registry-copy.pdf"],
        total=1,
    )
    db.session.add(secret)
    db.session.commit()
    viewer = client_as("viewer")
    hidden = viewer.get(f"/api/v1/runs/{secret.id}/items")
    assert (
        hidden.status_code == 404 and b"Denman" not in hidden.data and b"doc:1" not in hidden.data
    )
    assert hidden.get_json()["error"] == {
        "code": "not_found",
        "message": f"There is no run #{secret.id}.",
    }
    shown = editor.get(f"/api/v1/runs/{secret.id}/items").get_json()
    assert [item["key"] for item in shown["items"]] == ["doc:1:land-registry-copy.pdf"]
    missing = editor.get("/api/v1/runs/999999/items")
    assert missing.status_code == 404 and missing.get_json()["error"]["code"] == "not_found"
    anonymous = client.get(f"/api/v1/runs/{secret.id}/items")
    assert anonymous.status_code == 401 and "error" in anonymous.get_json()
    bad = editor.get(f"/api/v1/runs/{secret.id}/items?per_page=0")
    assert bad.status_code in (400, 422) and "error" in bad.get_json()
