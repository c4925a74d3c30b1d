"""Fertilizer plans (seed 001): N-P-K recommendations that add up."""

from flask import Blueprint

bp = Blueprint("fertilizer", __name__, url_prefix="/fertilizer")
api = Blueprint("fertilizer_api", __name__, url_prefix="/api/v1/fertilizer")
blueprints = (bp, api)
