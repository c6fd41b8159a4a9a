"""Rendering parse trees: HTML and terminal. Imported by the render phase."""
