"""The top-level wsgi.py is the app `gunicorn wsgi:app` serves: webapp.wsgi's own."""

import gc
import importlib
import sys

from webapp import ROOT
from webapp.extensions import db


def test_the_top_level_wsgi_module_is_webapp_wsgi(monkeypatch, tmp_path):
    monkeypatch.setenv("FURROW_INSTANCE_PATH", str(tmp_path))
    for name in ("DATABASE_URL", "REDIS_URL", "FURROW_QUEUE", "SECRET_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.syspath_prepend(str(ROOT))  # gunicorn started in the project's folder
    for name in ("wsgi", "webapp.wsgi"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    threshold = gc.get_threshold()
    try:
        top = importlib.import_module("wsgi")
    finally:
        gc.unfreeze()  # webapp.wsgi settles the collector for a server process
        gc.set_threshold(*threshold)
    try:
        assert top.__file__ == str(ROOT / "wsgi.py")
        assert top.app is sys.modules["webapp.wsgi"].app
        assert top.app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path / 'furrow.db'}"
    finally:
        with top.app.app_context():
            db.engine.dispose()
        for name in ("wsgi", "webapp.wsgi"):
            sys.modules.pop(name, None)
