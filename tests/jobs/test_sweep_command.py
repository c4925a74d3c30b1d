from datetime import timedelta

from tests.support.app import furrow
from webapp import create_app
from webapp.config import load_settings
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus


def test_cli_sweep_once_reports_a_lost_run_and_fails_clearly_without_redis(
    app, services, make_user
):
    def queued_run():
        old = utcnow() - timedelta(minutes=5)
        run = Run(
            kind="test_gated",
            title="t",
            status=RunStatus.queued,
            rq_job_id="gone",
            queued_at=old,
            requested_by=make_user(),
        )
        db.session.add(run)
        db.session.commit()
        return run

    run = queued_run()
    swept = furrow(app, "sweep", "--once")
    assert swept.returncode == 0, swept.stderr
    assert swept.stdout.strip() == f"lost: [] queue_lost: [{run.id}] hard-cancelled: []"
    db.session.expire_all()
    assert db.session.get(Run, run.id).error_code == "queue_lost"

    queued_run()  # a live run makes the sweeper ask Redis about its job
    # The same database, a Redis that is not there: an app of its own, as a process would load.
    down_app = create_app(load_settings(services.env(REDIS_URL="unix:///nonexistent/redis.sock")))
    try:
        down = furrow(down_app, "sweep", "--once")
    finally:
        with down_app.app_context():
            db.engine.dispose()
    assert down.returncode == 1
    assert down.stderr.strip().startswith("furrow: the job queue is not reachable:")
