"""rbc_bot: a Reconnaissance Blind Chess bot and the tools around it."""

__version__ = "0.1.0"
