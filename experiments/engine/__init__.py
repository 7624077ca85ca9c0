"""The experiment engine: configuration, the loop from splits to a result record, hyperparameter
selection, grid backends, metrics and records."""
