"""Submissions: prediction files for benchmark test sets (GLUE, SuperGLUE) written and validated,
bundled into the zip a benchmark's server takes, diagnostic sets scored from prediction files, and
the whole GLUE benchmark in one call. It drives the engine; nothing below imports it."""
