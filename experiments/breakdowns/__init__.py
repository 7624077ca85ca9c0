"""Breakdowns: scores by part of a test set rather than one accuracy. GLUE's AX (R3 per
category and phenomenon) and SuperGLUE's AX-b and AX-g, HANS (per heuristic and subcase), and the
annotation-artifact table; `sets` registers the labeled sets that `diagnose.py` scores."""
