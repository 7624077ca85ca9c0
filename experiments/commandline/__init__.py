"""What the command-line scripts share: argument groups built from the library's declarations,
and the translation of user errors into one line and exit status 2."""
