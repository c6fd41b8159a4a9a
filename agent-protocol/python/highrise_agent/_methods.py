"""Which code is profiled, and under which name: code object -> method id (or excluded).

Mapping (see README.md): package = the module's package (`a.b` for module `a.b.c`), class = the
class part of the function's `__qualname__` (`<locals>` parts dropped; module-level functions get
a class named after the module, `c`), method = the function name, signature = the parameter list,
file = `co_filename`, line = `co_firstlineno`.

Excluded by default: the standard library, site-packages (everything under the interpreter's
install and site directories) and frozen modules; `include` adds packages back, `exclude` removes
more; the agent's own package is never profiled.
"""

import os
import site
import sys
import sysconfig
import threading

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
    """`(a, b, *args, c, **kwargs)` from a code object."""
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
    return "(" + ", ".join(params) + ")"


def split_qualname(qualname, module_short):
    """`Outer.Inner.method` -> ("Outer.Inner", "method"); `f` -> (module_short, "f")."""
    parts = [part for part in qualname.split(".") if part != "<locals>"]
    method = parts[-1] if parts else qualname
    class_ = ".".join(parts[:-1]) or module_short
    return class_, method


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
        self._pending = []  # (id, package, class, method, signature, file, line)
        self.definitions = []  # all, in id order (tests, re-announce)

    # -- module names -----------------------------------------------------------------------

    def real_module_name(self, module):
        """`__main__` becomes the module's real name (`-m pkg.mod`) or the script's file stem.
        Looked up each time (once per code object): runpy swaps `sys.modules["__main__"]`."""
        if module != "__main__":
            return module
        main = sys.modules.get("__main__")
        spec = getattr(main, "__spec__", None)
        name = getattr(spec, "name", None)
        if not name:
            path = getattr(main, "__file__", None) or (sys.argv[0] if sys.argv else "")
            name = os.path.splitext(os.path.basename(path))[0] or "__main__"
        return name

    def module_included(self, module, filename, is_main=False):
        key = (module, filename)
        known = self._module_included.get(key)
        if known is None:
            known = self._decide(module, filename, is_main)
            self._module_included[key] = known
        return known

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
            if not isinstance(module, str):
                module = "<unknown>"
            is_main = module == "__main__"
            if is_main:
                module = self.real_module_name(module)
            filename = code.co_filename
            if not self.module_included(module, filename, is_main):
                return -1
            package, _, module_short = module.rpartition(".")
            qualname = getattr(code, "co_qualname", code.co_name)
            class_, method = split_qualname(qualname, module_short)
            if not code.co_flags & _CO_NEWLOCALS and code.co_name != "<module>":
                # A class body: it belongs to the class it defines.
                class_, method = ".".join(p for p in qualname.split(".") if p != "<locals>"), "<body>"
            line = code.co_firstlineno
            key = (package, class_, method, filename, line)
            with self._lock:
                method_id = self._ids.get(key)
                if method_id is not None:
                    return method_id
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

    def take_pending(self):
        with self._lock:
            pending, self._pending = self._pending, []
        return pending
