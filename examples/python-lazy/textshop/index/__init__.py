"""Full-text indexing and search. Imported by the index phase."""
