"""quizzer: rehearse AI-infrastructure interviews in the terminal."""

__version__ = "0.1.0"
