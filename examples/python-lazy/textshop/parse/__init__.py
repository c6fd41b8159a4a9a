"""Lexing and parsing documents into trees. Only the lexer is loaded at start-up."""
