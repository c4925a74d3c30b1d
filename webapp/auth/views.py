"""Sign in and out, the first administrator, and each person's own account and tokens; the
API's who-am-I."""

from __future__ import annotations

from flask import abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_user, logout_user

from webapp.auth import api, bp
from webapp.auth.access import public
from webapp.auth.accounts import (
    AccountError,
    claim_login_attempt,
    create_user,
    has_users,
)
from webapp.auth.forms import (
    ChangePasswordForm,
    EmptyForm,
    FirstAdminForm,
    LoginForm,
    NewTokenForm,
)
from webapp.auth.models import ApiToken, User
from webapp.auth.roles import Role
from webapp.contract import accepts
from webapp.database import utcnow
from webapp.extensions import db
from webapp.links import is_site_path
from webapp.rendering import render_page


def safe_next(target: str | None) -> str:
    """Only same-site paths, so a login link cannot send people elsewhere."""
    return target if is_site_path(target) else url_for("main.home")


@bp.route("/setup", methods=["GET", "POST"])
@public
def first_admin():
    if has_users():
        return redirect(url_for("auth.login"))
    form = FirstAdminForm()
    if form.validate_on_submit():
        try:
            user = create_user(
                form.email.data, form.password.data, Role.admin, form.name.data or ""
            )
        except AccountError as exc:
            form.email.errors.append(str(exc))
        else:
            # Two people racing through setup: only the very first account may become admin.
            if db.session.query(User).count() != 1:
                db.session.rollback()
                return redirect(url_for("auth.login"))
            db.session.commit()
            login_user(user)
            flash("Welcome to Furrow. You are its first administrator.", "success")
            return redirect(url_for("main.home"))
    return render_template("auth/setup.html", form=form), 422 if form.errors else 200


@bp.route("/login", methods=["GET", "POST"])
@public
def login():
    if not has_users():
        return redirect(url_for("auth.first_admin"))
    if current_user.is_authenticated:
        return redirect(safe_next(request.args.get("next")))
    form = LoginForm()
    status = 200
    if form.validate_on_submit():
        attempt, wait = claim_login_attempt(form.email.data, request.remote_addr or "unknown")
        if attempt is None:
            minutes = max(1, round(wait / 60))
            form.form_errors.append(
                f"Too many failed sign-ins. Try again in about {minutes} minute(s)."
            )
            status = 429
        else:
            user = User.by_email(form.email.data)
            if user is not None and user.active and user.check_password(form.password.data):
                attempt.succeeded = True
                user.last_login_at = utcnow()
                db.session.commit()
                login_user(user, remember=form.remember.data)
                return redirect(safe_next(request.args.get("next")))
            form.form_errors.append("Email or password is wrong, or the account is disabled.")
            status = 422
    elif form.errors:
        status = 422
    return render_template("auth/login.html", form=form), status


@bp.route("/logout", methods=["POST"])
def logout():
    """Sign out everywhere: a copied session or remember cookie must not outlive it."""
    current_user.end_sessions()
    db.session.commit()
    logout_user()
    flash("You are signed out, in this browser and everywhere else.", "info")
    return redirect(url_for("auth.login"))


@bp.route("/account")
def account():
    return render_account(password_form=ChangePasswordForm(), token_form=NewTokenForm())


def render_account(password_form, token_form, new_token: str | None = None, status: int = 200):
    return (
        render_page(
            "auth/account.html",
            "tokens" if new_token or token_form.errors else None,
            password_form=password_form,
            token_form=token_form,
            new_token=new_token,
            revoke_form=EmptyForm(),
        ),
        status,
    )


@bp.route("/account/password", methods=["POST"])
def change_password():
    form = ChangePasswordForm()
    if form.validate_on_submit():
        if current_user.check_password(form.current.data):
            remembered = current_app.config["REMEMBER_COOKIE_NAME"] in request.cookies
            current_user.set_password(form.password.data)  # ends every session…
            db.session.commit()
            login_user(current_user, remember=remembered)  # …but this one goes on
            flash("Your password is changed.", "success")
            return redirect(url_for("auth.account"))
        form.current.errors.append("That is not your current password.")
    return render_account(password_form=form, token_form=NewTokenForm(), status=422)


@bp.route("/account/tokens", methods=["POST"])
def create_token():
    form = NewTokenForm()
    if not form.validate_on_submit():
        return render_account(password_form=ChangePasswordForm(), token_form=form, status=422)
    _token, secret = ApiToken.issue(current_user, form.name.data.strip())
    db.session.commit()
    return render_account(
        password_form=ChangePasswordForm(), token_form=NewTokenForm(formdata=None), new_token=secret
    )


@bp.route("/account/tokens/<int:token_id>/revoke", methods=["POST"])
def revoke_token(token_id: int):
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != current_user.id:
        abort(404)
    if token.revoked_at is None:
        token.revoked_at = utcnow()
        db.session.commit()
    flash(f"Token “{token.name}” is revoked.", "success")
    return redirect(url_for("auth.account"))


@api.get("/me")
@accepts(summary="Who the session or token is.")
def me():
    return jsonify(
        id=current_user.id,
        email=current_user.email,
        name=current_user.name,
        role=current_user.role.name,
    )
