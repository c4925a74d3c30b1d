"""The home page, workspace entry pages and the health check."""

from flask import Blueprint

bp = Blueprint("main", __name__)
blueprints = (bp,)
