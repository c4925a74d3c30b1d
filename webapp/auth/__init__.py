"""Accounts, roles, sign-in, API tokens and the administrator's user pages."""
