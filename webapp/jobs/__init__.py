"""Background runs: the Run model, the queue, the worker's runner, the sweeper and their pages."""

from flask import Blueprint

bp = Blueprint("runs", __name__)
api = Blueprint("runs_api", __name__, url_prefix="/api/v1")
blueprints = (bp, api)
