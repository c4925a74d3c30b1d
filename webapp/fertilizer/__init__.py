"""Fertilizer plans (seed 001): N-P-K recommendations that add up."""

from flask import Blueprint

bp = Blueprint("fertilizer", __name__, url_prefix="/fertilizer")
# Its routes are in api.py, which takes this blueprint as it loads; once loaded, the package's
# `api` names that module, so no other module adds routes by this name.
api = Blueprint("fertilizer_api", __name__, url_prefix="/api/v1/fertilizer")
blueprints = (bp, api)
