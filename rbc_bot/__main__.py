"""``python -m rbc_bot`` runs the command line."""

from rbc_bot.cli import main

raise SystemExit(main())
