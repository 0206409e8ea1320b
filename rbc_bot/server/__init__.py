"""Local RBC server (official HTTP API, SQLite, waitress) and the ``connect`` client.

The server, from the socket in: ``runner`` (options, waitress, signals) -> ``app`` (Flask, errors
to JSON) -> ``routes/`` (one blueprint per resource) -> ``auth`` (HTTP Basic with ``passwords``
and ``throttle``) and ``service`` (live games, time-outs, shutdown) -> ``games`` (one game:
LocalGame plus turn phases and clocks) -> ``store`` (SQLite). ``names`` says what a username is,
``ladder`` pairs and rates ranked bots. The client: ``client`` (HTTP with backoff and a stop flag)
and ``connector`` (the lobby loop, one process per game).
"""
