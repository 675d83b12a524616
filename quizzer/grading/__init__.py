"""Grading what the user typed: answers (parsing), units, calc (numeric problems drawn from a
solution) and validate (running every numeric solution). Imports quizzer.content and below."""
