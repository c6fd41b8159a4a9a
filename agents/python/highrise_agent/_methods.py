"""Which code is profiled, and under which name: code object -> method id (or excluded).

Mapping (see README.md): package = the module's full dotted name (`pygments.lexer` for
`pygments/lexer.py`; a script run as `__main__` is named after its file, a `-m` module by its real
name), class = the class part of the function's `__qualname__` with `<locals>` dropped
(`Outer.Inner`; a class defined in function `make` is `make.Local`), or `<module>` for functions
outside any class, method = the function's name (prefixed with its enclosing functions for nested
functions: `timed.wrapper`), signature = the parameter list (`(self, text, *args, key, **kw)`),
file = `co_filename`, line = `co_firstlineno`.

Excluded by default: the standard library, site-packages (everything under the interpreter's
install and site directories) and frozen modules; `include` adds packages back, `exclude` removes
more; the agent's own package is never profiled.
"""

import collections
import os
import site
import sys
import sysconfig
import threading
import time
import types

from . import _phase

AGENT_PACKAGE = __name__.rpartition(".")[0]  # "highrise_agent"

_CO_NEWLOCALS = 0x02
_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


def _matches(module, prefixes):
    for prefix in prefixes:
        if module == prefix or module.startswith(prefix + "."):
            return True
    return False


def _library_dirs():
    """Directories whose code counts as library code (stdlib, site-packages), normalised."""
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            path = sysconfig.get_paths().get(key)
        except Exception:  # pragma: no cover - broken sysconfig
            path = None
        if path:
            dirs.add(path)
    try:
        dirs.update(site.getsitepackages())
    except Exception:
        pass
    try:
        user = site.getusersitepackages()
        if user:
            dirs.add(user)
    except Exception:
        pass
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        dirs.add(os.path.join(prefix, "lib"))
        dirs.add(os.path.join(prefix, "lib64"))
    out = []
    for path in dirs:
        path = os.path.normcase(os.path.realpath(path))
        out.append(path.rstrip(os.sep) + os.sep)
    return tuple(sorted(set(out)))


def signature_of(code):
    """`(a, b, *args, c, **kwargs)` from a code object: the parameter list as Python writes it,
    without defaults and annotations (a code object has neither)."""
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    posonly = getattr(code, "co_posonlyargcount", 0)
    params = list(names[:positional])
    if posonly:
        params.insert(posonly, "/")
    index = positional
    if code.co_flags & _CO_VARARGS:
        params.append("*" + names[positional + keyword_only])
    elif keyword_only:
        params.append("*")
    params.extend(names[index : index + keyword_only])
    if code.co_flags & _CO_VARKEYWORDS:
        extra = 1 if code.co_flags & _CO_VARARGS else 0
        params.append("**" + names[positional + keyword_only + extra])
    # Comprehensions and generator expressions take their iterator as a hidden `.0`.
    return "(" + ", ".join(param for param in params if not param.startswith(".")) + ")"


MODULE_BLOCK = "<module>"  # the block of a module's functions outside any class (never a class name)


def _innermost_class(parts):
    """Index of the innermost class in qualname parts (-1: none). A part followed by `<locals>` is
    a function; any other part but the last is a class."""
    innermost = -1
    for index in range(len(parts) - 1):
        if parts[index] != "<locals>" and parts[index + 1] != "<locals>":
            innermost = index
    return innermost


def _dotted(parts):
    return ".".join(part for part in parts if part != "<locals>")


def split_qualname(qualname):
    """A function's `__qualname__` -> (class, method, the class's own qualname or "").

    The class is the qualname up to its innermost class with `<locals>` parts dropped, or
    `<module>` when the function is in no class; the method is the rest: the function's name after
    the names of the functions it is nested in.

    `Board.rotate` -> ("Board", "rotate"); `Outer.Inner.m` -> ("Outer.Inner", "m");
    `run` -> ("<module>", "run"); `timed.<locals>.wrapper` -> ("<module>", "timed.wrapper");
    `C.m.<locals>.helper` -> ("C", "m.helper"); `make.<locals>.Local.m` -> ("make.Local", "m").
    """
    parts = qualname.split(".")
    innermost = _innermost_class(parts)
    class_ = _dotted(parts[: innermost + 1]) or MODULE_BLOCK
    method = _dotted(parts[innermost + 1 :]) or qualname
    return class_, method, ".".join(parts[: innermost + 1])


def functions_of(module, class_module):
    """The code objects of `module`'s functions and methods (its classes' whose `__module__` is
    `class_module`, four levels deep; static and class methods, properties), each through
    decorators' wrappers to the function itself, and only code compiled from the module's own
    file: a function imported from elsewhere, or a decorator's wrapper, belongs to the module
    that defines it. Used for functions=all (`define_loaded`) and by the GIL-free sampler."""
    filename = module.__file__
    source = os.path.normcase(os.path.realpath(filename))
    seen = set()
    stack = [(value, 0) for value in list(vars(module).values())]
    while stack:
        value, depth = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property):
            stack.extend((f, depth) for f in (value.fget, value.fset, value.fdel) if f is not None)
        elif isinstance(value, type):
            if depth < 4 and getattr(value, "__module__", None) == class_module:
                stack.extend((member, depth + 1) for member in list(vars(value).values()))
        elif isinstance(value, types.FunctionType):
            for _ in range(8):  # through decorators' wrappers to the function itself
                inner = getattr(value, "__wrapped__", None)
                if not isinstance(inner, types.FunctionType):
                    break
                value = inner
            code = value.__code__
            if code.co_filename == filename or os.path.normcase(os.path.realpath(code.co_filename)) == source:
                yield code


class Methods:
    """Assigns dense method ids, remembers which modules are excluded, and queues definitions for
    the sender. `resolve` is called once per code object (the hooks cache the answer)."""

    def __init__(self, include=(), exclude=()):
        self.include = tuple(p for p in include if p)
        self.exclude = tuple(p for p in exclude if p)
        self._library_dirs = _library_dirs()
        self._stdlib_names = frozenset(getattr(sys, "stdlib_module_names", ()))
        self._lock = threading.Lock()
        self._module_included = {}
        self._ids = {}  # (package, class, method, file, line) -> id
        self._names = set()  # (package, class, method, signature) already used
        self._blocks = {}  # (package, class qualname with <locals>) -> block name
        self._block_owner = {}  # (package, block name) -> class qualname with <locals>
        self._pending = []  # (id, package, class, method, signature, file, line)
        self.definitions = []  # all, in id order (tests, re-announce)
        self._main_name = None  # what `__main__` was named while its code ran
        self._modules_seen = set()  # `define_loaded`: modules queued or defined already
        self._modules_to_define = collections.deque()

    # -- module names -----------------------------------------------------------------------

    def real_module_name(self, module):
        """`__main__` becomes the module's real name (`-m pkg.mod`) or the script's file stem
        (`shop_demo` for `shop_demo.py`; `__main__` itself for `-c`, stdin and the REPL).
        Looked up each time (once per code object): runpy swaps `sys.modules["__main__"]`."""
        if module != "__main__":
            return module
        main = sys.modules.get("__main__")
        spec = getattr(main, "__spec__", None)
        name = getattr(spec, "name", None)
        if not name:
            path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv else "")
            name = os.path.splitext(os.path.basename(path))[0]
            if name in ("", "-", "-c"):  # stdin, the REPL, `python -c`
                name = "__main__"
        return name

    def module_included(self, module, filename, is_main=False):
        key = (module, filename)
        known = self._module_included.get(key)
        if known is None:
            known = self._decide(module, filename, is_main)
            self._module_included[key] = known
        return known

    def class_of_program(self, cls):
        """Whether `cls` is defined in a module the agent profiles (the class diagram keeps the
        program's classes, as the Java agent keeps those its filter instruments)."""
        module = getattr(cls, "__module__", None)
        if not isinstance(module, str):
            return False
        filename = getattr(sys.modules.get(module), "__file__", None)
        if not isinstance(filename, str):
            filename = "<%s>" % module
        return self.module_included(module, filename, is_main=module == "__main__")

    def _decide(self, module, filename, is_main):
        if _matches(module, (AGENT_PACKAGE,)):
            return False
        if self.exclude and _matches(module, self.exclude):
            return False
        if self.include and _matches(module, self.include):
            return True
        if filename.startswith("<") and not is_main:
            # Frozen modules and code exec'd from strings by libraries (namedtuple, dataclasses).
            return False
        top = module.partition(".")[0]
        if top in self._stdlib_names and not is_main:
            return False
        path = os.path.normcase(os.path.realpath(filename)) if filename and filename[0] != "<" else ""
        if path and path.startswith(self._library_dirs):
            return False
        return True

    # -- ids ----------------------------------------------------------------------------------

    def resolve(self, code, module):
        """The method id for `code` running in module `module` (its `__name__`), or -1."""
        try:
            if code.co_filename == _phase.PHASE_FILENAME:
                return self._phase_id(code)
            if not isinstance(module, str):
                module = "<unknown>"
            is_main = module == "__main__"
            if is_main:
                module = self._main_name = self.real_module_name(module)
            filename = code.co_filename
            if not self.module_included(module, filename, is_main):
                return -1
            package = module
            qualname = getattr(code, "co_qualname", code.co_name)
            if not code.co_flags & _CO_NEWLOCALS and code.co_name != "<module>":
                # A class body: it belongs to the class it defines.
                class_, method, owner = _dotted(qualname.split(".")), "<body>", qualname
            else:
                class_, method, owner = split_qualname(qualname)
            line = code.co_firstlineno
            key = (package, owner, method, filename, line)
            with self._lock:
                method_id = self._ids.get(key)
                if method_id is not None:
                    return method_id
                class_ = self._block(package, class_, owner)
                signature = signature_of(code)
                if (package, class_, method, signature) in self._names:
                    signature = "%s line %d" % (signature, line)
                self._names.add((package, class_, method, signature))
                method_id = len(self.definitions)
                self._ids[key] = method_id
                definition = (method_id, package, class_, method, signature, filename, line)
                self.definitions.append(definition)
                self._pending.append(definition)
                return method_id
        except Exception:
            return -1

    # -- functions that have not run (functions=all) -------------------------------------------

    def define_loaded(self, budget_s=0.02):
        """Defines every function and method of the profiled modules imported since the last
        call, whether it has run or not (`functions=all`), for at most about `budget_s` of the
        caller's time (the rest waits for the next call). A module still being imported waits
        too. True when every module seen so far is defined."""
        for name, module in list(sys.modules.items()):
            if name not in self._modules_seen and name != "__main__" and module is not None:
                self._modules_seen.add(name)
                self._modules_to_define.append(name)
        deadline = time.monotonic() + budget_s
        waiting = []
        while self._modules_to_define and time.monotonic() < deadline:
            name = self._modules_to_define.popleft()
            module = sys.modules.get(name)
            if getattr(getattr(module, "__spec__", None), "_initializing", False):
                waiting.append(name)  # its body is still running
                continue
            try:
                self._define_module(name, module)
            except Exception:
                pass
        self._modules_to_define.extend(waiting)
        return not self._modules_to_define

    def _define_module(self, name, module):
        filename = getattr(module, "__file__", None)
        if not isinstance(filename, str) or not self.module_included(name, filename):
            return
        for code in functions_of(module, name):
            self.resolve(code, name)

    def _phase_id(self, code):
        """The method id of a phase mark (`highrise.phase.NAME`), always profiled."""
        key = (_phase.PACKAGE, _phase.CLASS, code.co_name, _phase.PHASE_FILENAME, 0)
        with self._lock:
            method_id = self._ids.get(key)
            if method_id is None:
                method_id = len(self.definitions)
                self._ids[key] = method_id
                self._names.add((_phase.PACKAGE, _phase.CLASS, code.co_name, None))
                definition = (method_id, _phase.PACKAGE, _phase.CLASS, code.co_name, None, None, None)
                self.definitions.append(definition)
                self._pending.append(definition)
            return method_id

    def _block(self, package, name, owner):
        """The block for class `owner` (its qualname with `<locals>`), named `name` unless another
        class of this module already has that name (a class `make.Local` nested in a class and
        one defined in a function `make`): then `owner` itself, or `name (2)`, `(3)`, …"""
        block = self._blocks.get((package, owner))
        if block is not None:
            return block
        candidates = [name, owner] if owner else [name]
        candidates.extend("%s (%d)" % (name, n) for n in range(2, 1000))
        for block in candidates:
            if self._block_owner.setdefault((package, block), owner) == owner:
                break
        self._blocks[(package, owner)] = block
        return block

    # -- classes (allocation counting) ---------------------------------------------------------

    def class_definition(self, class_id, cls):
        """(class_id, package, name, kind) for a ClassDef: `type.__module__` (`__main__` named as
        for methods) and the class's `__qualname__` with `<locals>` dropped, the block name its
        methods got when there is one, so the class and its block read alike; `cls` None is the
        untyped blocks of allocator counting (CPython 3.11/3.12)."""
        if cls is None:
            return (class_id, "", "(untyped)", 2)
        try:
            module = cls.__module__
        except Exception:
            module = None
        if not isinstance(module, str):
            module = ""
        if module == "__main__":
            # Named as its functions were: by the time a class is defined to the viewer, runpy may
            # have put the agent's own `__main__` back.
            module = self._main_name or self.real_module_name(module)
        try:
            qualname = cls.__qualname__
        except Exception:
            qualname = None
        if not isinstance(qualname, str):
            qualname = getattr(cls, "__name__", None) or "?"
        with self._lock:
            name = self._blocks.get((module, qualname))
        if name is None:
            name = _dotted(qualname.split(".")) or qualname
        return (class_id, module, name, 0)

    def take_pending(self):
        with self._lock:
            pending, self._pending = self._pending, []
        return pending
