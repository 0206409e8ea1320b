"""One module per subcommand: ``configure(parser)`` adds its flags, ``run(args)`` does the work."""
