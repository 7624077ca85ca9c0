"""Speed and memory of the suite and the choice of its defaults: measurement code that users never
import, kept out of the installed package. Run from a checkout: python benchmarks/benchmark.py."""
