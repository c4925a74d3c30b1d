"""The application gunicorn serves: `furrow serve`, or `gunicorn webapp.wsgi:app`."""

from webapp import create_app
from webapp.heap import settle

app = create_app(migrations=False)  # `furrow serve` or `furrow db upgrade` migrates
settle()
