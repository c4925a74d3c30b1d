"""The farm systems workspace's `furrow` commands: the IFT reference doses (`import-doses`,
`dose-coverage`), and its part of `furrow demo`."""

from __future__ import annotations

import click
from flask.cli import with_appcontext


def fail(message: str, code: int = 1):
    from webapp.cli import fail

    fail(message, code)


@click.command("import-doses")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option(
    "--names",
    "names_path",
    type=click.Path(dir_okay=False),
    help="The ministry's product list (Nom_produit, AMM) naming the table's AMM numbers.",
)
@with_appcontext
def import_doses_command(path: str, names_path: str | None) -> None:
    """Import an IFT reference-dose table (CSV), such as the ministry's for the campaign: the IFT
    calculator uses it from then on."""
    from pathlib import Path

    from webapp.extensions import db
    from webapp.problems import Invalid
    from webapp.systems.doses import import_doses, imported_summary, read_dose_file

    reading = path
    try:
        with Path(path).open("rb") as handle:
            text = read_dose_file(handle)
        names = None
        if names_path:
            reading = names_path
            with Path(names_path).open("rb") as handle:
                names = (read_dose_file(handle), Path(names_path).name)
        stored, table = import_doses(text, Path(path).name, None, names)
    except OSError as exc:
        fail(f"cannot read {reading}: {exc.strerror or exc}", 2)
    except Invalid as exc:
        db.session.rollback()
        problems = exc.problems
        more = f" (and {len(problems) - 1} more bad lines)" if len(problems) > 1 else ""
        fail(f"{path}: nothing imported: {problems[0].message}{more}")
    db.session.commit()
    click.echo(f"imported {imported_summary(stored, table)}: the IFT calculator uses them")


@click.command("dose-coverage")
@click.argument("systems", nargs=-1, type=int)
@click.option("--file", "path", type=click.Path(dir_okay=False), help="An itinera file instead.")
@with_appcontext
def dose_coverage_command(systems: tuple[int, ...], path: str | None) -> None:
    """How many treatments the IFT reference-dose table in force covers, and the products it
    has no dose for: of the systems given by number (every system by default), or of a file."""
    from pathlib import Path

    from webapp.problems import Invalid
    from webapp.systems.calculators.ift import DoseCoverage, dose_coverage, reference_doses
    from webapp.systems.document import read_document
    from webapp.systems.doses import systems_dose_coverage, table_label
    from webapp.systems.forms import IMPORT_MAX_BYTES
    from webapp.uploads import read_text

    if path and systems:
        fail("give system numbers or --file, not both", 2)
    click.echo(f"table: {table_label()}")
    try:
        if path:
            with Path(path).open("rb") as handle:
                document = read_document(read_text(handle, IMPORT_MAX_BYTES))
            found = [(Path(path).name, dose_coverage([document], reference_doses()))]
        else:
            found = [(f"#{s.id} {s.name}", c) for s, c in systems_dose_coverage(systems)]
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}", 2)
    except (Invalid, LookupError) as exc:
        fail(f"{path}: {exc}" if path else str(exc), 2)
    if not found:
        click.echo("there are no farm systems")
    for name, coverage in found:
        click.echo(f"{name}: {coverage.summary}")
        for product, count in coverage.missing.most_common():
            click.echo(f"  no reference dose: {product} ({count} treatment(s))")
    if len(found) > 1:
        total = sum((c for _, c in found), DoseCoverage())
        click.echo(f"all {len(found)} systems: {total.summary}")


def load_demo() -> str:
    """Add the demo farm system when there is none; say what was done."""
    from webapp.systems.demo import load_demo_system

    return (
        "added the demo farm system"
        if load_demo_system()
        else "there are farm systems; no demo system"
    )


commands = (import_doses_command, dose_coverage_command)
