"""Studying: the queue and one question's phases (session), weak topics, mock interviews,
statistics, and the Anki deck export. Imports quizzer.progress and below; no front end."""
