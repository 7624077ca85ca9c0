"""Corpora the suite generates itself: the `demo` task, `hans-mini`, and the SNLI-shaped corpus
behind the benchmarks."""
