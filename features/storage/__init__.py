"""Files as data: atomic writes, the declared-state schema every model file is checked against,
the model-file container, and the on-disk caches of annotations and feature values. Everything
read back from here is checked before use: a file chooses no code, path or size."""
