"""Getting data onto the machine: official corpus archives fetched, verified and extracted, and
WordNet 3.0 put where NLTK finds it."""
