"""The administrator's page: add people, change roles, disable accounts, reset passwords."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, url_for
from sqlalchemy import select

from webapp.auth import admin as bp
from webapp.auth.access import require_role
from webapp.auth.accounts import AccountError, create_user, ensure_not_last_admin
from webapp.auth.forms import EmptyForm, NewUserForm, ResetPasswordForm, UserRoleForm
from webapp.auth.models import User
from webapp.auth.roles import ROLE_NAMES, Role
from webapp.extensions import db


@bp.before_request
@require_role(Role.admin)
def only_admins():
    """Every page here is for administrators."""


def user_or_404(user_id: int) -> User:
    user = db.session.get(User, user_id)
    if user is None:
        abort(404)
    return user


def render_users(new_user_form: NewUserForm | None = None, status: int = 200):
    users = db.session.scalars(select(User).order_by(User.email)).all()
    return (
        render_template(
            "admin/users.html",
            users=users,
            form=new_user_form or NewUserForm(formdata=None),
            roles=ROLE_NAMES,
            button_form=EmptyForm(),
        ),
        status,
    )


@bp.route("/users")
def users():
    return render_users()


@bp.route("/users", methods=["POST"])
def add_user():
    form = NewUserForm()
    if form.validate_on_submit():
        try:
            user = create_user(
                form.email.data, form.password.data, Role[form.role.data], form.name.data or ""
            )
        except AccountError as exc:
            form.email.errors.append(str(exc))
        else:
            db.session.commit()
            flash(f"{user.email} can now sign in as {user.role.name}.", "success")
            return redirect(url_for("admin.users"))
    return render_users(form, status=422)


def change_and_report(change, message: str):
    try:
        change()
    except AccountError as exc:
        db.session.rollback()
        flash(str(exc), "error")
        return redirect(url_for("admin.users"))
    db.session.commit()
    flash(message, "success")
    return redirect(url_for("admin.users"))


@bp.route("/users/<int:user_id>/role", methods=["POST"])
def set_role(user_id: int):
    user = user_or_404(user_id)
    form = UserRoleForm()
    if not form.validate_on_submit():
        flash("Choose one of the listed roles.", "error")
        return redirect(url_for("admin.users"))
    new_role = Role[form.role.data]

    def change():
        if new_role != Role.admin:
            ensure_not_last_admin(user)
        if user.role != new_role:
            user.role = new_role
            user.end_sessions()

    return change_and_report(change, f"{user.email} is now {new_role.name}.")


@bp.route("/users/<int:user_id>/active", methods=["POST"])
def toggle_active(user_id: int):
    user = user_or_404(user_id)

    def change():
        if user.active:
            ensure_not_last_admin(user)
        user.active = not user.active
        user.end_sessions()

    state = "enabled" if not user.active else "disabled"
    return change_and_report(change, f"{user.email} is {state}.")


@bp.route("/users/<int:user_id>/password", methods=["POST"])
def reset_password(user_id: int):
    user = user_or_404(user_id)
    form = ResetPasswordForm()
    if not form.validate_on_submit():
        for error in form.password.errors:
            flash(f"Password for {user.email}: {error}", "error")
        return redirect(url_for("admin.users"))
    user.set_password(form.password.data)
    db.session.commit()
    flash(f"The password of {user.email} is reset; tell them the new one.", "success")
    return redirect(url_for("admin.users"))
