"""The application for a WSGI server started in this folder: `gunicorn wsgi:app`.

The same app as `webapp.wsgi:app`, which `furrow serve` runs.
"""

from webapp.wsgi import app

__all__ = ["app"]
