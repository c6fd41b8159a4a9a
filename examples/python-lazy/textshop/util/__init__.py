"""Small helpers: a clock, an LRU cache, text utilities."""
