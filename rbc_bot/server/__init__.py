"""Local RBC server (official HTTP API, SQLite, waitress) and the ``connect`` client."""
