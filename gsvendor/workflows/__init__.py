"""One module per command: each reads the configuration's inputs, calls the domain packages and
returns a result for gsvendor.report to print.

The only layer that combines fetching, building and writing; never imports gsvendor.cli.
"""
