"""Statistics of scored predictions: the metrics of a split, significance tests and intervals
(McNemar's exact test, the paired bootstrap), and refits on resampled training sets. A layer below
the engine, the breakdowns and the reports, which all use it; it reads no files and runs nothing."""
