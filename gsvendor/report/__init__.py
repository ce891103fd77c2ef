"""Presentation: rich tables and text, JSON and JUnit XML for every command.

Reads results the workflows return; computes nothing that a check depends on.
"""
