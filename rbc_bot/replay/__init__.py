"""Replay analysis: load finished games, re-simulate beliefs, find mistakes, write reports."""
