"""Accounts, roles, sign-in, API tokens and the administrator's user pages."""

from flask import Blueprint

bp = Blueprint("auth", __name__)
admin = Blueprint("admin", __name__, url_prefix="/admin")
api = Blueprint("auth_api", __name__, url_prefix="/api/v1")
blueprints = (bp, admin, api)
