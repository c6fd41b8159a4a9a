"""Where documents come from (a synthetic corpus) and where output goes."""
