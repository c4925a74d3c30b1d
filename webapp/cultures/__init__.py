"""The crop catalog: cultures, their fields and units, and the plausibility rules for them."""

from flask import Blueprint

bp = Blueprint("cultures", __name__, url_prefix="/cultures")
api = Blueprint("cultures_api", __name__, url_prefix="/api/v1/cultures")
blueprints = (bp, api)
