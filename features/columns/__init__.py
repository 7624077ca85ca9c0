"""The column machinery beneath the feature types: integer encoding of annotated pairs, exact
int64 feature keys mapped to column numbers, and binned copies of real-valued columns."""
