"""The shared vocabulary of AI proposals (Evidence, Issue, Suggestion, Run, Change)."""
