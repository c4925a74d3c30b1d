"""Farm systems (seed 003): crop rotations, their interventions, and indicators calculated from
cited figures and the user's assumptions, every value reviewed like any other proposal."""

from flask import Blueprint

bp = Blueprint("systems", __name__, url_prefix="/systems")
# Its routes are in api.py, which takes this blueprint as it loads; once loaded, the package's
# `api` names that module, so no other module adds routes by this name.
api = Blueprint("systems_api", __name__, url_prefix="/api/v1/systems")
blueprints = (bp, api)
