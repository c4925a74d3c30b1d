"""Research tables (seed 002): typed columns, rows, and columns filled by strategies."""
