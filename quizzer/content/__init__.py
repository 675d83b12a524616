"""The question bank: pydantic models, the YAML source, the loaded Bank (and its cache), the
schema doc, scaffolding, filters and the one localised renderer. Imports only quizzer.base."""
