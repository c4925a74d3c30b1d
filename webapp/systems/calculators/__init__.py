"""Offline, cited, deterministic calculators for farm-system indicators."""
