"""The feature types: one module each, and nothing else. A type is registered in
`features.registry` under the name of its module (`cross_bigrams` is `types/cross_bigrams.py`)."""
