"""Research tables (seed 002): typed columns, rows, and columns filled by strategies."""

from flask import Blueprint

bp = Blueprint("tables", __name__, url_prefix="/tables")
api = Blueprint("tables_api", __name__, url_prefix="/api/v1/tables")
blueprints = (bp, api)
