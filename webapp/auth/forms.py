"""Forms for signing in, the first administrator, user administration and API tokens."""

from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, PasswordField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Email, EqualTo, InputRequired, Length, Optional, ValidationError

from webapp.auth.passwords import MIN_PASSWORD, password_problem
from webapp.auth.roles import ROLE_NAMES


def usable_password(_form, field) -> None:
    problem = password_problem(field.data or "")
    if problem:
        raise ValidationError(problem)


def new_password_field(label: str = "Password") -> PasswordField:
    return PasswordField(
        label,
        validators=[InputRequired(), Length(max=200), usable_password],
        description=f"At least {MIN_PASSWORD} characters, and not a common password.",
    )


def confirm_field(other: str) -> PasswordField:
    return PasswordField(
        "Repeat password", validators=[InputRequired(), EqualTo(other, "The passwords differ.")]
    )


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[InputRequired(), Email(), Length(max=254)])
    password = PasswordField("Password", validators=[InputRequired(), Length(max=200)])
    remember = BooleanField("Keep me signed in")


class FirstAdminForm(FlaskForm):
    name = StringField("Name", validators=[Optional(), Length(max=120)])
    email = EmailField("Email", validators=[InputRequired(), Email(), Length(max=254)])
    password = new_password_field()
    confirm = confirm_field("password")


class NewUserForm(FlaskForm):
    name = StringField("Name", validators=[Optional(), Length(max=120)])
    email = EmailField("Email", validators=[InputRequired(), Email(), Length(max=254)])
    role = SelectField(
        "Role", choices=[SelectChoice(name) for name in ROLE_NAMES], default="viewer"
    )
    password = new_password_field()


class UserRoleForm(FlaskForm):
    role = SelectField("Role", choices=[SelectChoice(name) for name in ROLE_NAMES])


class ResetPasswordForm(FlaskForm):
    password = new_password_field("New password")


class ChangePasswordForm(FlaskForm):
    current = PasswordField("Current password", validators=[InputRequired(), Length(max=200)])
    password = new_password_field("New password")
    confirm = confirm_field("password")


class NewTokenForm(FlaskForm):
    name = StringField(
        "Token name",
        validators=[InputRequired(), Length(max=80)],
        description="What the token is for, e.g. “nightly export script”.",
    )


class EmptyForm(FlaskForm):
    """A form with only the CSRF token, for buttons that POST."""
