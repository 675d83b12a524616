"""The question bank shipped with quizzer (YAML content, catalogs and data)."""
