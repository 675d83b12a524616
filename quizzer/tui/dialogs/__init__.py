"""Modal dialogs (*Modal): they return a value to the screen that pushed them."""
