"""highrise_agent: the Python agent of highrise (a live 3D code-city performance viewer).

It records every Python function enter/exit of the program (standard library and site-packages
excluded by default) into bounded per-thread buffers and streams them from a background thread
to the viewer over TCP, in the protocol of agent-protocol/SPEC.md.

Use it as `python -m highrise_agent script.py args...` (or `-m module`), or from code:
`import highrise_agent; highrise_agent.start()`. Mark phases of the program (for `highrise classes`
and `highrise predict`) with `with highrise_agent.phase("parse"): ...`.

Where to start reading: `_agent.py` (start/stop, the sender thread), `_methods.py` (what is
profiled and how functions are named), `_native.c` (the C hook; `_native.h` lists its other
files) and `_pyhook.py` (the pure-Python fallback), `_wire.py` (the encoder).
"""

from ._agent import Agent, __version__, start, stop
from ._phase import phase

__all__ = ["Agent", "phase", "start", "stop", "__version__"]
