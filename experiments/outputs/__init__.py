"""What a run writes: the report, saved models, GLUE/SuperGLUE prediction files, the diagnostic
breakdown, and the published figures results are compared with."""
