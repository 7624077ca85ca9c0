"""What the feature types read besides the words: tokens, Penn Treebank tags and lemmas,
dependency parses (from spaCy or read off a corpus' trees), WordNet, and the word alignment of
the hypothesis to the premise."""
