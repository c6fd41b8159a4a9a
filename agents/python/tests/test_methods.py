"""Naming and exclusion (highrise_agent._methods) on real code objects."""

import json
import sys

from highrise_agent import _agent
from highrise_agent._methods import Methods, signature_of, split_qualname


def test_split_qualname():
    assert split_qualname("Board.rotate") == ("Board", "rotate", "Board")
    assert split_qualname("Outer.Inner.m") == ("Outer.Inner", "m", "Outer.Inner")
    assert split_qualname("run") == ("<module>", "run", "")
    assert split_qualname("<module>") == ("<module>", "<module>", "")
    assert split_qualname("<lambda>") == ("<module>", "<lambda>", "")
    # Nested functions stay in the block of their class (or module), named after their path.
    assert split_qualname("f.<locals>.g") == ("<module>", "f.g", "")
    assert split_qualname("f.<locals>.g.<locals>.h") == ("<module>", "f.g.h", "")
    assert split_qualname("C.m.<locals>.helper") == ("C", "m.helper", "C")
    assert split_qualname("C.m.<locals>.<genexpr>") == ("C", "m.<genexpr>", "C")
    # A class defined in a function keeps the function's name: its own block.
    assert split_qualname("make.<locals>.Local.m") == ("make.Local", "m", "make.<locals>.Local")
    assert split_qualname("C.m.<locals>.Local.Inner.n") == ("C.m.Local.Inner", "n", "C.m.<locals>.Local.Inner")


def test_signatures():
    def plain(a, b=1):
        pass

    def star(a, *args, key, **kwargs):
        pass

    def kw_only(a, *, key):
        pass

    def pos_only(a, /, b):
        pass

    def everything(self, a, /, b, *rest, key, flag=False, **options):
        pass

    def only_star(*args, **kwargs):
        pass

    assert signature_of(everything.__code__) == "(self, a, /, b, *rest, key, flag, **options)"
    assert signature_of(only_star.__code__) == "(*args, **kwargs)"
    assert signature_of((lambda: None).__code__) == "()"
    genexpr = (x for x in ())
    assert signature_of(genexpr.gi_code) == "()"  # not "(.0)": the hidden iterator argument

    assert signature_of(plain.__code__) == "(a, b)"
    assert signature_of(star.__code__) == "(a, *args, key, **kwargs)"
    assert signature_of(kw_only.__code__) == "(a, *, key)"
    assert signature_of(pos_only.__code__) == "(a, /, b)"


def test_same_name_twice_gets_the_line_in_its_signature():
    namespace = {"__name__": "shop.util"}
    exec(compile("def f(x):\n    pass\nfirst = f\n\n\ndef f(x):\n    pass\n", "/src/shop/util.py", "exec"), namespace)
    methods = Methods()
    first = methods.resolve(namespace["first"].__code__, "shop.util")
    second = methods.resolve(namespace["f"].__code__, "shop.util")
    assert (first, second) == (0, 1)
    assert methods.resolve(namespace["first"].__code__, "shop.util") == 0  # stable
    defs = methods.take_pending()
    assert [d[1:5] for d in defs] == [
        ("shop.util", "<module>", "f", "(x)"),
        ("shop.util", "<module>", "f", "(x) line 6"),
    ]
    assert methods.take_pending() == []


def test_library_code_is_excluded_unless_included():
    code = json.dumps.__code__
    assert Methods().resolve(code, "json") == -1
    assert Methods(include=["json"]).resolve(code, "json") == 0
    assert Methods(include=["json"], exclude=["json"]).resolve(code, "json") == -1


def test_the_agent_is_never_profiled():
    code = _agent.start.__code__
    assert Methods().resolve(code, "highrise_agent._agent") == -1
    assert Methods(include=["highrise_agent"]).resolve(code, "highrise_agent._agent") == -1


def test_exec_strings_excluded_except_main():
    code = compile("def g():\n    pass\n", "<string>", "exec")
    methods = Methods()
    assert methods.resolve(code, "namedtuple_Point") == -1
    assert methods.resolve(code, "__main__") >= 0  # python -c, or a script fed on stdin


def test_user_code_is_included_with_its_package():
    def local_function():
        pass

    methods = Methods()
    assert methods.resolve(local_function.__code__, "app.core.engine") == 0
    [definition] = methods.take_pending()
    _, package, class_, method, signature, file, line = definition
    assert (package, class_, method, signature) == (
        "app.core.engine",
        "<module>",
        "test_user_code_is_included_with_its_package.local_function",
        "()",
    )
    assert file == __file__ and line == local_function.__code__.co_firstlineno


def _load(methods, module, filename, source):
    """Executes `source` as module `module` (file `filename`) and resolves every function and
    class body it defines, recursively; returns {qualname: (package, class, method, signature)}."""
    namespace = {"__name__": module}
    code = compile(source, filename, "exec")
    exec(code, namespace)
    found = {}

    def walk(code):
        method_id = methods.resolve(code, module)
        assert method_id >= 0, code
        definition = methods.definitions[method_id]
        found[getattr(code, "co_qualname", code.co_name)] = definition[1:5]
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                walk(const)

    walk(code)
    return found


LEXER = """
class Lexer:
    def tokens(self, text, stack=('root',)):
        pass


class RegexLexer(Lexer):
    class State:
        class Rule:
            def match(self, text, pos):
                pass

    def get_tokens_unprocessed(self, text, stack=('root',)):
        def helper(m):
            pass


def bygroups(*args):
    def callback(lexer, match, ctx=None):
        pass
    return callback


def make_lexer(name):
    class Lexer:
        def tokens(self, text):
            pass
    return Lexer
"""

FORMATTER = """
class Lexer:
    def tokens(self, text, stack=('root',)):
        pass


def bygroups(*args):
    pass
"""


def test_same_class_name_in_two_modules_of_one_package_gives_two_blocks():
    methods = Methods()
    lexer = _load(methods, "pyglike.lexer", "/src/pyglike/lexer.py", LEXER)
    other = _load(methods, "pyglike.formatter", "/src/pyglike/formatter.py", FORMATTER)
    assert lexer["Lexer.tokens"] == ("pyglike.lexer", "Lexer", "tokens", "(self, text, stack)")
    assert other["Lexer.tokens"] == ("pyglike.formatter", "Lexer", "tokens", "(self, text, stack)")
    assert other["bygroups"] == ("pyglike.formatter", "<module>", "bygroups", "(*args)")
    blocks = {(d[1], d[2]) for d in methods.definitions}
    assert ("pyglike.lexer", "Lexer") in blocks and ("pyglike.formatter", "Lexer") in blocks


def test_nested_classes_module_functions_and_classes_in_functions():
    found = _load(Methods(), "pyglike.lexer", "/src/pyglike/lexer.py", LEXER)
    assert found["<module>"] == ("pyglike.lexer", "<module>", "<module>", "()")
    assert found["RegexLexer"] == ("pyglike.lexer", "RegexLexer", "<body>", "()")
    assert found["RegexLexer.get_tokens_unprocessed"] == (
        "pyglike.lexer",
        "RegexLexer",
        "get_tokens_unprocessed",
        "(self, text, stack)",
    )
    assert found["RegexLexer.get_tokens_unprocessed.<locals>.helper"] == (
        "pyglike.lexer",
        "RegexLexer",
        "get_tokens_unprocessed.helper",
        "(m)",
    )
    assert found["RegexLexer.State.Rule.match"] == ("pyglike.lexer", "RegexLexer.State.Rule", "match", "(self, text, pos)")
    assert found["RegexLexer.State.Rule"] == ("pyglike.lexer", "RegexLexer.State.Rule", "<body>", "()")
    # Module-level functions (and the functions nested in them) share the module's block.
    assert found["bygroups"] == ("pyglike.lexer", "<module>", "bygroups", "(*args)")
    assert found["bygroups.<locals>.callback"] == ("pyglike.lexer", "<module>", "bygroups.callback", "(lexer, match, ctx)")
    assert found["make_lexer"] == ("pyglike.lexer", "<module>", "make_lexer", "(name)")
    # A class defined in a function is not the module's class of the same name.
    assert found["make_lexer.<locals>.Lexer.tokens"] == ("pyglike.lexer", "make_lexer.Lexer", "tokens", "(self, text)")
    assert found["make_lexer.<locals>.Lexer"] == ("pyglike.lexer", "make_lexer.Lexer", "<body>", "()")
    assert found["Lexer.tokens"] == ("pyglike.lexer", "Lexer", "tokens", "(self, text, stack)")


def test_a_class_in_a_function_and_a_nested_class_of_one_dotted_name_get_two_blocks():
    # Only possible when a module redefines a name (a function `make`, later a class `make`), but
    # even then the two classes `make.Local` must not share a block.
    source = """
def make():
    class Local:
        def run(self):
            pass
    return Local


class make:
    class Local:
        def run(self):
            pass
"""
    found = _load(Methods(), "app.factory", "/src/app/factory.py", source)
    assert found["make.<locals>.Local.run"] == ("app.factory", "make.Local", "run", "(self)")
    assert found["make.Local.run"] == ("app.factory", "make.Local (2)", "run", "(self)")
    assert found["make.Local"] == ("app.factory", "make.Local (2)", "<body>", "()")


def test_script_modules_are_named_after_their_file(monkeypatch):
    import types

    main = types.ModuleType("__main__")
    main.__file__ = "/home/me/tools/shop_demo.py"
    main.__spec__ = None
    monkeypatch.setitem(sys.modules, "__main__", main)
    methods = Methods()
    assert methods.real_module_name("__main__") == "shop_demo"
    main.__spec__ = types.SimpleNamespace(name="shop.cli")
    assert methods.real_module_name("__main__") == "shop.cli"
    main.__spec__ = None
    del main.__file__
    monkeypatch.setattr(sys, "argv", ["-c"])
    assert methods.real_module_name("__main__") == "__main__"


def test_define_loaded_defines_every_function_of_the_profiled_modules_run_or_not(tmp_path, monkeypatch):
    """functions=all: a profiled package's functions, methods, static/class methods, properties
    and decorated functions are defined on import, none of them having run; a function imported
    from elsewhere and a decorator's wrapper are not attributed to the importing module."""
    package = tmp_path / "unrun_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "deco.py").write_text(
        "import functools\n"
        "def traced(f):\n"
        "    @functools.wraps(f)\n"
        "    def wrapper(*args, **kwargs):\n"
        "        return f(*args, **kwargs)\n"
        "    return wrapper\n"
    )
    (package / "shapes.py").write_text(
        "from os.path import join\n"
        "from .deco import traced\n"
        "def area(w, h):\n"
        "    return w * h\n"
        "@traced\n"
        "def scaled(x, k=2):\n"
        "    return x * k\n"
        "class Box:\n"
        "    def __init__(self, w):\n"
        "        self.w = w\n"
        "    @staticmethod\n"
        "    def unit():\n"
        "        return Box(1)\n"
        "    @classmethod\n"
        "    def of(cls, w):\n"
        "        return cls(w)\n"
        "    @property\n"
        "    def width(self):\n"
        "        return self.w\n"
        "    class Lid:\n"
        "        def close(self):\n"
        "            pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("unrun_pkg.shapes")
    try:
        methods = Methods(include=("unrun_pkg",))
        assert methods.define_loaded(budget_s=float("inf"))
        names = {(d[1], d[2], d[3]) for d in methods.definitions}
        assert ("unrun_pkg.shapes", "<module>", "area") in names
        assert ("unrun_pkg.shapes", "<module>", "scaled") in names  # the function, not its wrapper
        for method in ("__init__", "unit", "of", "width"):
            assert ("unrun_pkg.shapes", "Box", method) in names, method
        assert ("unrun_pkg.shapes", "Box.Lid", "close") in names
        assert ("unrun_pkg.deco", "<module>", "traced") in names
        assert not any(d[3] == "join" for d in methods.definitions)  # os.path's, not the package's
        assert not any(d[1] == "unrun_pkg.shapes" and d[3] == "wrapper" for d in methods.definitions)
        # The ids are those the hooks get when the code runs, and nothing is defined twice.
        shapes = sys.modules["unrun_pkg.shapes"]
        before = len(methods.definitions)
        assert methods.resolve(shapes.area.__code__, "unrun_pkg.shapes") == next(
            d[0] for d in methods.definitions if d[3] == "area"
        )
        assert methods.define_loaded(budget_s=float("inf"))
        assert len(methods.definitions) == before
        # Not profiled: nothing defined.
        assert not Methods(include=("other",)).definitions
    finally:
        for name in [n for n in sys.modules if n.startswith("unrun_pkg")]:
            del sys.modules[name]


def test_functions_option_reads_the_environment_and_warns_on_a_bad_value(monkeypatch, capsys):
    monkeypatch.delenv("HIGHRISE_FUNCTIONS", raising=False)
    assert _agent.parse_functions(None) == "run"
    monkeypatch.setenv("HIGHRISE_FUNCTIONS", "all")
    assert _agent.parse_functions(None) == "all"
    assert _agent.parse_functions("run") == "run"
    assert _agent.parse_functions("some") == "run"
    assert "functions=some" in capsys.readouterr().err
