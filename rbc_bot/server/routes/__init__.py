"""The HTTP routes, one blueprint per resource: users, invitations, games, results pages."""
