"""The shared vocabulary of AI proposals (Evidence, Issue, Suggestion, Run, Change)."""

from flask import Blueprint

bp = Blueprint("review", __name__, url_prefix="/review")
api = Blueprint("review_api", __name__, url_prefix="/api/v1")
blueprints = (bp, api)
