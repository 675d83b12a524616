"""The user's progress: the store (the only code that runs SQL, with its migrations and the
file-safety modules dbopen, dbcheck and outfile), scheduling (FSRS), transfer (export, import,
backup, restore) and settings (one typed model). Imports quizzer.content and below."""
