"""The shared vocabulary of AI proposals (Evidence, Issue, Suggestion, Run, Change)."""

from flask import Blueprint

api = Blueprint("review_api", __name__, url_prefix="/api/v1")
blueprints = (api,)
