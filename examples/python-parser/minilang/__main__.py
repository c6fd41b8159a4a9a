"""python -m minilang --procs N: generate N procedures, parse them, resolve them, say what was
made."""

import argparse
import contextlib

from minilang import source
from minilang.parser import Parser
from minilang.resolver import Resolver
from minilang.tree import Call

try:  # phase marks when the highrise agent is installed; nothing otherwise
    from highrise_agent import phase
except ImportError:

    def phase(name):
        return contextlib.nullcontext()


def count_calls(program):
    return sum(
        1 for proc in program.procs for statement in proc.body if isinstance(getattr(statement, "value", None), Call)
    )


def main(argv=None):
    args = argparse.ArgumentParser(prog="minilang")
    args.add_argument("--procs", type=int, default=100)
    args.add_argument("--seed", type=int, default=16)
    options = args.parse_args(argv)
    text = source.generate(options.procs, options.seed)
    with phase("parse"):
        program = Parser(text).parse()
    resolver = Resolver()
    with phase("resolve"):
        resolver.resolve(program)
    print(
        "minilang: %d procs, %d calls, %d scopes, %d references"
        % (len(program.procs), count_calls(program), len(resolver.scopes), len(resolver.references))
    )


if __name__ == "__main__":
    main()
