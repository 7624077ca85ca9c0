"""How the suite runs as a process: progress-bar switches, lazily imported package exports, and
the commands that messages tell the user to type."""
