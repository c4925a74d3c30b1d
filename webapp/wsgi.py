"""The application gunicorn serves: `furrow serve`, or `gunicorn webapp.wsgi:app`."""

import gc

from webapp import create_app

app = create_app(migrations=False)  # `furrow serve` or `furrow db upgrade` migrates
# Everything made at start-up (modules, the app, its templates) lives as long as the process:
# moved out of the collector's sight, a full collection no longer walks its ~190,000 objects
# (66 ms a time here, landing on whichever request triggered it; under 1 ms frozen).
gc.freeze()
