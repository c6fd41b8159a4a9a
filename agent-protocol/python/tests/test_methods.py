"""Naming and exclusion (highrise_agent._methods) on real code objects."""

import json

from highrise_agent import _agent
from highrise_agent._methods import Methods, signature_of, split_qualname


def test_split_qualname():
    assert split_qualname("Board.rotate", "game") == ("Board", "rotate")
    assert split_qualname("Outer.Inner.m", "game") == ("Outer.Inner", "m")
    assert split_qualname("run", "game") == ("game", "run")
    assert split_qualname("f.<locals>.g", "game") == ("f", "g")


def test_signatures():
    def plain(a, b=1):
        pass

    def star(a, *args, key, **kwargs):
        pass

    def kw_only(a, *, key):
        pass

    def pos_only(a, /, b):
        pass

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
    assert [d[1:5] for d in defs] == [("shop", "util", "f", "(x)"), ("shop", "util", "f", "(x) line 6")]
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
    assert (package, class_, method, signature) == ("app.core", "test_user_code_is_included_with_its_package", "local_function", "()")
    assert file == __file__ and line == local_function.__code__.co_firstlineno
