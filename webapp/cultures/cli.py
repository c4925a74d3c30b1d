"""The cultures workspace's `furrow` commands: `crop export`, and its part of `furrow demo`."""

from __future__ import annotations

import click
from flask.cli import with_appcontext


def fail(message: str, code: int = 1):
    from webapp.cli import fail

    fail(message, code)


@click.group("crop")
def crop_cli() -> None:
    """Cultures as crop profiles."""


@crop_cli.command("export")
@click.argument("culture_id", type=int)
@click.option("-o", "--output", required=True, help="The crop profile file to write.")
@with_appcontext
def export_crop_command(culture_id: int, output: str) -> None:
    """Write a culture as a crop profile (`agrr crop` format) for `furrow fertilize recommend`."""
    import json
    from pathlib import Path

    from webapp.cultures.catalog import values_of
    from webapp.cultures.models import Culture
    from webapp.cultures.profile import crop_profile
    from webapp.extensions import db

    culture = db.session.get(Culture, culture_id)
    if culture is None:
        fail(f"no culture #{culture_id}", 2)
    text = json.dumps(crop_profile(values_of(culture)), ensure_ascii=False)
    try:
        Path(output).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}", 2)
    click.echo(f"wrote {culture.label} to {output}")


def load_demo() -> str:
    """Add the demo cultures when the catalog is empty; say what was done."""
    from webapp.cultures.demo import load_demo_cultures

    added = load_demo_cultures()
    return f"added {added} demo cultures" if added else "the catalog is not empty; no demo data"


commands = (crop_cli,)
