"""What every layer reads from the environment: the clock (QUIZZER_NOW) and the paths
(QUIZZER_BANK, QUIZZER_DB, QUIZZER_CACHE). Imports nothing else from quizzer."""
