"""The command line: a thin click layer over the library (`quizzer.cli:main` is the console
script). main.py holds the group and its global options, one module per command group adds
the commands, common.py the shared options and helpers; plain_drill and plain_mock are the
line-based front ends."""

from quizzer.cli.main import main

__all__ = ["main"]
