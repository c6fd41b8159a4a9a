"""Threads: the worker pool, the processing pipeline, client sessions."""
