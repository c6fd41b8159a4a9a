"""The recorder backed by the `_native` C extension (a C-level profile hook). Importing this
module raises ImportError when the extension is not built; the agent then uses `_pyhook`."""

import threading

from . import _native
from ._pyhook import _thread_name


class NativeRecorder:
    kind = "native"

    def __init__(self, methods, clock_zero_ns, buffer_events):
        self._methods = methods
        self._zero = clock_zero_ns
        self._cap = max(2, int(buffer_events))
        self._installed = False

    @property
    def mechanism(self):
        return _native.mechanism if self._installed else "none"

    def install(self):
        _native.install(self._methods.resolve, _thread_name, self._zero, self._cap)
        threading.setprofile(_native.bootstrap)
        self._installed = True

    def uninstall(self):
        if self._installed:
            threading.setprofile(None)
            _native.uninstall()
            self._installed = False

    def drain(self, now_ticks, final=False):
        return _native.drain(now_ticks)

    @property
    def dropped_total(self):
        return _native.dropped_total()
