"""What a run writes and reads back as data: run records, saved models (the Predictor and its
model file), prediction files in GLUE, SuperGLUE and table formats, and submission bundles."""
