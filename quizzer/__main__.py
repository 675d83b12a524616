"""Entry point for ``python -m quizzer``."""

from quizzer.cli import main

if __name__ == "__main__":
    main()
