"""Statistics of scored predictions: the metrics of a split, significance tests and intervals
(McNemar's exact test, the paired bootstrap), and refits on resampled training sets. A layer below
the engine, the breakdowns and the reports, which all use it; it reads no files and runs nothing.

Not named `statistics`: `python experiments/run.py` puts experiments/ first on sys.path, where a
folder of that name would stand for the standard library's module."""
