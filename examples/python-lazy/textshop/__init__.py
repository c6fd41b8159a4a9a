"""textshop: a small text-processing service used as highrise's lazily loading Python example.

Start-up imports only `textshop.app` (and through it the clock, the readers, the lexer and the
worker pool); the render, index and session modules are imported later, phase by phase, so the
viewer sees districts appear while the program runs. See examples/python-lazy/README.md.
"""

__version__ = "1.4.0"


def version():
    return "textshop " + __version__
