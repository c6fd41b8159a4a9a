"""Prints what the program sees: sys.argv and __name__."""
import json
import sys

print(json.dumps({"argv": sys.argv, "name": __name__}))
