"""Registry review forms: they only collect input; webapp.registry.review_state, documents and
checklist decide what is valid."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, MultipleFileField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice

from webapp.registry.checklist import BUNDLED_LABELS, FIELD_LABELS, REGISTRATION, StructuredField
from webapp.registry.discovery import TYPE_LABELS
from webapp.registry.target import OUTCOMES, VERDICTS
from webapp.registry.words import DATE_STYLE_LABELS


class NewReviewForm(FlaskForm):
    name = StringField("Name", description="The project under review, e.g. “Denman farm 2024”.")
    # Checked by checklist.bundled, which names the choices when one is not.
    bundled_checklist = SelectField(
        "Checklist",
        choices=[SelectChoice(name, label) for name, label in BUNDLED_LABELS.items()],
        default=REGISTRATION,
        validate_choice=False,
        description="Regen Network's soil-carbon methodology v1.2.2: a registration is checked "
        "on its project plan and land tenure, an issuance on its monitoring report and credit "
        "statement.",
    )
    checklist = FileField(
        "Or your own checklist (optional)",
        description="A methodology checklist as JSON, of the bundled checklists' shape; used "
        "instead of the one chosen above.",
    )


class UploadForm(FlaskForm):
    files = MultipleFileField(
        "Add documents",
        description="PDF, Markdown (.md), text (.txt), CSV (.csv) or Excel (.xlsx); one or "
        "several files.",
    )


class DateStyleForm(FlaskForm):
    date_style = SelectField(
        "Dates",
        choices=[SelectChoice(style, label) for style, label in DATE_STYLE_LABELS.items()],
    )


class TypeForm(FlaskForm):
    document_type = SelectField(
        "Kind", choices=[SelectChoice(t.value, label) for t, label in TYPE_LABELS.items()]
    )


def _choices(labels: dict[str, str]) -> list[SelectChoice]:
    return [SelectChoice("", "Choose…"), *(SelectChoice(k, v) for k, v in labels.items())]


class OutcomeForm(FlaskForm):
    outcome = SelectField("Overall outcome", choices=_choices(OUTCOMES))
    comment = TextAreaField("Comment", render_kw={"rows": 2})


class VerdictForm(FlaskForm):
    verdict = SelectField("Verdict", choices=_choices(VERDICTS))
    comment = TextAreaField("Comment", render_kw={"rows": 2})


class EntryForm(FlaskForm):
    """A structured field's value from one document and page: a snippet's (hidden), or chosen
    and typed when no passage states it."""

    field = SelectField("Field")
    value = StringField("Value", description="As the passage states it.")
    document = HiddenField()
    page = HiddenField()

    def limit_to(self, fields: list[StructuredField]) -> EntryForm:
        self.field.choices = [SelectChoice(f.value, FIELD_LABELS[f]) for f in fields]
        return self
