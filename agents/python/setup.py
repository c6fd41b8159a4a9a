"""Builds the optional C extension `highrise_agent._native`. If it cannot be built (no compiler,
no Python headers, an unsupported interpreter) the package still installs and the agent uses
its pure-Python recorder."""

import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    def run(self):
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any failure means "no extension"
            self._warn(error)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            self._warn(error)

    @staticmethod
    def _warn(error):
        sys.stderr.write(
            "highrise-agent: the C extension was not built (%s); "
            "the pure-Python recorder will be used\n" % error
        )


# The C recorder, one translation unit per concern; _native.h lists them and what they share.
native = Extension(
    "highrise_agent._native",
    sources=[
        "highrise_agent/_native.c",
        "highrise_agent/_native_hooks.c",
        "highrise_agent/_native_tasks.c",
        "highrise_agent/_native_alloc.c",
        "highrise_agent/_native_live.c",
        "highrise_agent/_native_drain.c",
    ],
    depends=["highrise_agent/_native.h"],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    optional=True,
)

# The GIL-free stack reader (mode=sampled) knows the frame layout of 3.11 to 3.13; elsewhere the
# sampler reads the stacks with the GIL (sys._current_frames).
stacks = Extension(
    "highrise_agent._stacks",
    sources=["highrise_agent/_stacks.c"],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    optional=True,
)

ext_modules = []
if sys.implementation.name == "cpython" and sys.version_info >= (3, 11):
    ext_modules.append(native)
    if sys.version_info < (3, 14):
        ext_modules.append(stacks)

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
