# Reliability tests of the CLI (interruption, resource limits, unwritable outputs): included by
# tests/CMakeLists.txt.
