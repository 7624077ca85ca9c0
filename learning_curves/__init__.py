"""The SNLI paper's learning-curve experiment: accuracy against training-set size, with plots."""
