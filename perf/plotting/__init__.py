"""perf/plot.py's parts: reading, deriving, and the figures."""
