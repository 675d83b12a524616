"""Checks of the code exercises: one module per subject, each holding ExerciseSpec objects (the
numpy reference, inputs, edge cases, tolerances, the model solution and its mutants)."""
