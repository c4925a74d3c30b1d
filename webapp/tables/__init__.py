"""Research tables (seed 002): typed columns, rows, and columns filled by strategies."""

from flask import Blueprint

bp = Blueprint("tables", __name__, url_prefix="/tables")
# Its routes are in api.py, which takes this blueprint as it loads; once loaded, the package's
# `api` names that module, so no other module adds routes by this name.
api = Blueprint("tables_api", __name__, url_prefix="/api/v1/tables")
blueprints = (bp, api)
