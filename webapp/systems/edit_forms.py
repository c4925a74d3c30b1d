"""The forms that edit a system on its page: a level's assumptions, a step, an intervention,
the system's details and its farm. They carry the inputs and the CSRF token; the rules are
webapp.systems.editing's and catalog's, whose problems land under these inputs."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice

from webapp.systems.document import ASSUMPTIONS_LIMIT, BOTTOM, TOP


class AssumptionsForm(FlaskForm):
    """One level's assumptions: the system's (no step), a step's or an intervention's."""

    step = HiddenField()
    intervention = HiddenField()
    assumptions = TextAreaField(
        "Assumptions",
        description=f"Markdown, at most {ASSUMPTIONS_LIMIT:,} characters. "
        "A line such as “- **Dose**: 3 L/ha” is read by the calculators.",
        render_kw={"rows": 6},
    )


class ProposalForm(FlaskForm):
    """One proposal (by its key) added to an intervention's assumptions."""

    step = HiddenField()
    intervention = HiddenField()
    key = HiddenField()


class StepForm(FlaskForm):
    name = StringField("Name", description="The crop or cover crop, such as “Blé tendre”.")
    start = StringField("Start", render_kw={"type": "date"})
    end = StringField("End", render_kw={"type": "date"})
    color = StringField(
        "Colour",
        description="Its bar's colour, such as #d2b48c; empty for the default.",
        render_kw={"placeholder": "#d2b48c"},
    )
    lane = SelectField(
        "Lane",
        choices=[SelectChoice("main", "Main crop"), SelectChoice("cover", "Cover crop")],
        default="main",
    )


class InterventionForm(FlaskForm):
    name = StringField("Name", description="Such as “Labour” or “Désherbage”.")
    description = TextAreaField(
        "Description",
        description="Products and doses written here are proposed as assumptions "
        "(“Roundup Extra 360 3,5 L/ha sur 30 %”).",
        render_kw={"rows": 3},
    )
    day = StringField(
        "Day",
        description="Days from the step's start: -5 is five days before it, 0 its first day.",
        default="0",
        render_kw={"inputmode": "numeric"},
    )
    type = SelectField(
        "Lane",
        choices=[SelectChoice(TOP, "Main crop"), SelectChoice(BOTTOM, "Cover crop")],
        default=TOP,
    )
    step = SelectField("Step", choices=[], validate_choice=False)


class FarmForm(FlaskForm):
    name = StringField("Name")
    region = StringField("Region")


class SystemForm(FlaskForm):
    name = StringField("Name")
    description = TextAreaField("Description", render_kw={"rows": 3})
    system_type = StringField("System type", description="Such as “Grandes cultures bio”.")
    productions = StringField("Productions", description="Such as “Céréales, légumineuses”.")
    gps_location = StringField("GPS location", description="Such as “49.18, -0.37”.")
