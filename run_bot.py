"""Command-line entry point: ``python run_bot.py --help``."""

from rbc_bot.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
