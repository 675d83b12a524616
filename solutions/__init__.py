"""Reference solutions for numeric questions: plain functions, no I/O beyond reading facts."""
