"""Benchmarks that ship with the package (run with ``trulymem bench``)."""
