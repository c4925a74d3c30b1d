"""WTForms fields built from field specs: the form only collects text; the spec reads it."""

from __future__ import annotations

from wtforms import Field, SelectField, SelectMultipleField, StringField, TextAreaField, widgets
from wtforms.fields.choices import SelectChoice

from webapp.review.fields import FieldSpec, Kind


def form_field(spec: FieldSpec, description: str | None = None) -> Field:
    """The input for one spec: text for numbers (read by the spec, so "3,5" and its error
    message are the app's), a select or checkboxes for choices, a text area for long text."""
    description = spec.help if description is None else description
    if spec.kind is Kind.choice:
        blank = [SelectChoice("", "—")]
        return SelectField(spec.label, choices=blank + _choices(spec), description=description)
    if spec.kind is Kind.choices:
        return SelectMultipleField(
            spec.label,
            choices=_choices(spec),
            option_widget=widgets.CheckboxInput(),
            widget=widgets.ListWidget(prefix_label=False),
            validate_choice=False,
            description=description,
        )
    if spec.kind is Kind.long_text:
        return TextAreaField(spec.label, description=description, render_kw={"rows": 6})
    if spec.is_numeric:
        return StringField(spec.label, description=description, render_kw={"inputmode": "decimal"})
    if spec.kind is Kind.text:
        return StringField(spec.label, description=description)
    if spec.kind is Kind.url:
        return StringField(spec.label, description=description, render_kw={"inputmode": "url"})
    raise ValueError(f"{spec.name}: a {spec.kind} field has no form input")


def _choices(spec: FieldSpec) -> list[SelectChoice]:
    return [SelectChoice(choice.value, choice.shown) for choice in spec.choices]
