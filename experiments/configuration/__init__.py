"""A run's configuration: the options table (every option's flag, kind, bounds and default,
declared once for the command lines and Python), `RunConfig` built and checked from it, and the
error a user fixes by changing the command. Light by design: a command's `--help` reads it."""
