from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from webapp.extensions import db


def library_differences(include_name=None) -> list:
    opts = {"compare_type": True}
    if include_name is not None:
        opts["include_name"] = include_name
    with db.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection, opts=opts), db.metadata)
    return [d for d in diff if "library" in repr(d)]


def test_the_migration_matches_the_models_and_autogenerate_keeps_the_search_index(app):
    if db.engine.dialect.name == "sqlite":
        names = set(
            db.session.scalars(text("SELECT name FROM sqlite_master WHERE name LIKE 'library%'"))
        )
        assert {"library_passages_fts", "library_passages_fts_delete"} <= names
    else:
        assert db.session.scalar(
            text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_library_passages_fts'")
        ).startswith("CREATE INDEX ix_library_passages_fts ON public.library_passages USING gin")
    # Without the library's filter autogenerate would propose dropping the index; with it, the
    # database and the models agree.
    assert library_differences()
    assert library_differences(app.extensions["migrate"].configure_args["include_name"]) == []
