"""Phase marks: `with highrise_agent.phase("parse"):` (or `@highrise_agent.phase("parse")` on a
function) opens a frame of the method `highrise.phase.parse` on the calling thread for as long as
the block runs, as if it were a call. `highrise classes` and `highrise predict --phase parse` cut
the run at those frames (Murphy & Saenko 1998's phases), and the city shows the phase as a
building of the `highrise` package while it runs. With the agent's `live` option on, each
mark's end also sends the objects live per class (a `LiveObjects` snapshot, README "Live objects").

Each phase name gets one code object of its own (a tiny compiled function, never called), which
the agent's method registry names `highrise.phase.NAME`; the recorder enters and exits it like a
profiled function's frame. Without a running agent a mark costs a global read."""

import functools
import threading

# The file name of phase marks' code objects (how `_methods.Methods.resolve` knows them).
PHASE_FILENAME = "<highrise phase>"
PACKAGE = "highrise"
CLASS = "phase"

_codes = {}
_lock = threading.Lock()


def phase_code(name):
    """The code object standing for phase `name` (the same one every time)."""
    code = _codes.get(name)
    if code is None:
        with _lock:
            code = _codes.get(name)
            if code is None:
                namespace = {}
                exec(compile("def mark():\n    pass\n", PHASE_FILENAME, "exec"), namespace)
                code = namespace["mark"].__code__.replace(co_name=name, co_qualname=name)
                _codes[name] = code
    return code


# The agent module, imported on first use (it imports the method registry, which imports this).
_agent_module = None


def _running_agent():
    global _agent_module
    if _agent_module is None:
        from . import _agent as _agent_module
    agent = _agent_module._agent
    return agent if agent is not None and agent.running else None




class phase:
    """A phase of the program named `name`: a context manager, or a decorator for a function
    whose every call is the phase. Phases nest; a phase ends on the thread it began on."""

    __slots__ = ("name", "_code")

    def __init__(self, name):
        if not isinstance(name, str) or not name:
            raise ValueError("a phase needs a name, e.g. phase(\"parse\")")
        self.name = name
        self._code = phase_code(name)

    def __enter__(self):
        agent = _running_agent()
        if agent is not None:
            agent.phase_used = True  # mode=auto keeps the hooks: they time phases exactly
            if agent.hooks:  # samples have no phases (README "Measuring by samples")
                agent.recorder.phase_enter(self._code)
        return self

    def __exit__(self, *exc_info):
        agent = _running_agent()
        if agent is not None and agent.hooks:
            if agent.live:  # the live objects as the phase ends, just before its exit
                agent.snapshot_live()
            agent.recorder.phase_exit(self._code)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def in_phase(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return in_phase

    def __repr__(self):
        return "phase(%r)" % self.name
