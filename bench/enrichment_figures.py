"""Offline enrichment throughput and review-panel latency.

- 1,000 cultures enriched through RQ by `furrow serve`'s 2 workers (SQLite + embedded Redis),
  as one batch run: cultures per second, and how much of the time the rules themselves take.
- The culture page with 15 suggestions in its review panel: server time p50/p95 (test client).

Run from the repository root: `.venv/bin/python bench/enrichment_figures.py`.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.server import served_app  # noqa: E402

CULTURES = 1000
PAGE_REQUESTS = 200
EMAIL, PASSWORD = "bench@example.org", "a bench password of some length"


def timed_rules(crops) -> float:
    """Seconds the provider and rules take for these cultures, without queue or database."""
    from webapp.cultures.fields import ENRICHABLE_FIELDS
    from webapp.cultures.providers.offline import OfflineProvider
    from webapp.cultures.rules import postprocess

    provider = OfflineProvider()
    began = time.perf_counter()
    for crop in crops:
        values = {"name": crop, "reference_crop": crop}
        answer = provider.propose_culture(values, list(ENRICHABLE_FIELDS))
        postprocess(answer.proposal, values)
    return time.perf_counter() - began


def main() -> None:
    with served_app(workers=2) as app:
        from webapp.auth.accounts import create_user
        from webapp.auth.roles import Role
        from webapp.cultures.models import Culture
        from webapp.cultures.runs import start_enrichment
        from webapp.extensions import db
        from webapp.jobs.models import Run
        from webapp.reference.library import library

        with app.app_context():
            user = create_user(EMAIL, PASSWORD, Role.admin)
            crops = [library().crops[n % len(library().crops)].id for n in range(CULTURES)]
            db.session.add_all(Culture(name=c, reference_crop=c) for c in crops)
            db.session.commit()
            ids = list(db.session.scalars(db.select(Culture.id)))
            # Two runs, so both workers take a half each.
            half = len(ids) // 2
            began = time.perf_counter()
            runs = [
                start_enrichment(ids[:half], user).id,
                start_enrichment(ids[half:], user).id,
            ]
            while True:
                db.session.expire_all()
                states = [db.session.get(Run, r).status for r in runs]
                db.session.commit()
                if all(s not in ("queued", "running") for s in states):
                    break
                time.sleep(0.05)
            elapsed = time.perf_counter() - began
            assert states == ["succeeded", "succeeded"], states
            rules = timed_rules(crops)
            print(
                f"offline enrichment, {CULTURES} cultures, 2 workers: "
                f"{CULTURES / elapsed:.0f} cultures/s ({elapsed:.1f} s); provider + rules "
                f"alone {rules:.2f} s, so {100 * (1 - rules / (2 * elapsed)):.0f} % of "
                "worker time is outside them (queue, database, progress)"
            )
            panel_latency(app, ids)


def panel_latency(app, ids) -> None:
    """The culture page with its review panel, timed inside the app (no network)."""
    from webapp.extensions import db
    from webapp.review.models import Suggestion

    culture_id = ids[0]
    # The offline provider suggests up to 6 fields; pad the panel to 15 rows with copies.
    for n in range(15 - db.session.query(Suggestion).filter_by(target_id=culture_id).count()):
        first = db.session.query(Suggestion).filter_by(target_id=culture_id).first()
        db.session.add(
            Suggestion(
                run_id=first.run_id,
                target_type="culture",
                target_id=culture_id,
                field=f"{first.field}_copy_{n}",
                suggested_value=n,
                evidence=first.evidence,
                issues=first.issues,
            )
        )
    db.session.commit()
    from tests.support.app import Client

    app.test_client_class = Client
    client = app.test_client()
    assert client.login(EMAIL, PASSWORD).status_code == 302
    times = []
    for _ in range(PAGE_REQUESTS):
        began = time.perf_counter()
        response = client.get(f"/cultures/{culture_id}")
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200
    times.sort()
    p50, p95 = statistics.median(times), times[int(0.95 * len(times))]
    print(
        f"culture page with a 15-suggestion review panel ({PAGE_REQUESTS} requests): "
        f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"
    )


if __name__ == "__main__":
    main()
