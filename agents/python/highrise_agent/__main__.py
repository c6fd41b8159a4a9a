"""`python -m highrise_agent [options] script.py args...` or `... -m module args...`: run a Python
program with the highrise agent streaming to the viewer."""

import argparse
import os
import runpy
import sys

from ._agent import start


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m highrise_agent",
        description="Run a Python program with the highrise agent: every function enter/exit is "
        "streamed to the highrise viewer (standard library and site-packages excluded unless "
        "--include'd).",
    )
    parser.add_argument(
        "--addr",
        default=None,
        help="viewer address HOST:PORT (default: $HIGHRISE_ADDR, else 127.0.0.1:7878)",
    )
    parser.add_argument(
        "--token",
        default=None,
        help="the viewer's token, needed only by a viewer on another machine that listens with "
        "--allow-remote (default: $HIGHRISE_TOKEN; the environment keeps it out of `ps`)",
    )
    parser.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="PKG",
        help="also profile this package/module (e.g. json, requests); repeatable",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PKG",
        help="do not profile this package/module; repeatable",
    )
    parser.add_argument("--program", default=None, help="program name shown in the viewer")
    parser.add_argument("--version-label", default=None, help="a label such as a git commit")
    parser.add_argument(
        "--backend",
        choices=("auto", "native", "python"),
        default=None,
        help="recorder: the C extension (native), pure Python, or auto (default: native when built)",
    )
    parser.add_argument(
        "--buffer-events",
        type=int,
        default=None,
        help="per-thread buffer capacity in events (default 65536); a full buffer drops and counts",
    )
    parser.add_argument(
        "--alloc",
        default=None,
        choices=("on", "off", "types", "blocks"),
        help="count the objects each profiled function creates (default: $HIGHRISE_ALLOC, else on; "
        "'types' needs CPython 3.13+, 'blocks' counts allocator blocks; needs the C recorder)",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        default=None,
        help="at each phase mark's end, count the objects live per class after a collection "
        "(default: $HIGHRISE_LIVE, else off; needs allocation counting)",
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        default=None,
        help="at the end, print the events sent to the viewer and those dropped on stderr "
        "(default: $HIGHRISE_STATS, else off)",
    )
    parser.add_argument(
        "--mode",
        default=None,
        choices=("auto", "exact", "sampled"),
        help="how to measure: every call (exact), every thread's stack every --sample ms "
        "(sampled: no hook, no call counts), or exact until the program makes more than 1 M "
        "events/s, then sampled (auto; default: $HIGHRISE_MODE, else auto)",
    )
    parser.add_argument(
        "--sample",
        type=float,
        default=None,
        metavar="MS",
        help="the sampling period in ms (default: $HIGHRISE_SAMPLE_MS, else 10)",
    )
    parser.add_argument(
        "--functions",
        default=None,
        choices=("run", "all"),
        help="which functions the city holds: those that ran, or every function and method of "
        "the profiled modules once imported, run or not (all; default: $HIGHRISE_FUNCTIONS, else run)",
    )
    parser.add_argument("-m", dest="module", default=None, help="run a library module as a script")
    parser.add_argument("target", nargs="?", help="the script to run (unless -m)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # Everything after the script (or after `-m module`) belongs to the program.
    ours, theirs = [], []
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "-m" and index + 1 < len(argv):
            ours += argv[index : index + 2]
            theirs = argv[index + 2 :]
            break
        if arg.startswith("-m") and len(arg) > 2:
            ours += ["-m", arg[2:]]
            theirs = argv[index + 1 :]
            break
        if arg in ("--addr", "--token", "--include", "--exclude", "--program", "--version-label", "--backend", "--buffer-events", "--alloc", "--mode", "--sample", "--functions"):
            ours += argv[index : index + 2]
            index += 2
            continue
        if arg.startswith("-"):
            ours.append(arg)
            index += 1
            continue
        ours.append(arg)
        theirs = argv[index + 1 :]
        break
    options = _parser().parse_args(ours)
    if options.module is None and options.target is None:
        _parser().error("give a script or -m module")

    if options.module is not None:
        sys.argv = [options.module] + theirs
        program = options.program or options.module
    else:
        sys.argv = [options.target] + theirs
        program = options.program or os.path.splitext(os.path.basename(options.target))[0]
        # Like `python script.py`: the script's directory comes first on sys.path.
        sys.path[0] = os.path.dirname(os.path.abspath(options.target))

    start(
        addr=options.addr,
        include=options.include,
        exclude=options.exclude,
        program=program,
        version_label=options.version_label,
        buffer_events=options.buffer_events,
        backend=options.backend,
        token=options.token,
        alloc=options.alloc,
        live=options.live,
        stats=options.stats,
        mode=options.mode,
        sample_ms=options.sample,
        functions=options.functions,
    )
    if options.module is not None:
        sys.path[0] = os.getcwd()
        runpy.run_module(options.module, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(options.target, run_name="__main__")


if __name__ == "__main__":
    main()
