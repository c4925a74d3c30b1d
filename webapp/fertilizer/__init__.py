"""Fertilizer plans (seed 001): N-P-K recommendations that add up."""
