"""The crop catalog: cultures, their fields and units, and the plausibility rules for them."""
