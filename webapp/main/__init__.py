"""The home page, workspace entry pages and the health check."""
