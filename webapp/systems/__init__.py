"""Farm systems (seed 003): crop rotations, their interventions, and indicators calculated from
cited figures and the user's assumptions, every value reviewed like any other proposal."""
