"""Client sessions, imported at the first restart. Each session starts an acknowledgement
poller thread; `Session.close` forgets to stop it (the bug), so every restart leaks one thread
stuck in `Session._await_ack` — in the viewer that building stands at 100 % and its thread count
grows by one per restart, like the paper's leaking tetris game."""
import itertools
import threading
import time

_numbers = itertools.count(1)


class Session:
    def __init__(self, name, exiting):
        self.number = next(_numbers)
        self.name = name
        self.closed = False
        self._acked = False
        self._exiting = exiting  # set only when the whole program ends
        self.polls = 0
        self._thread = None

    def open(self):
        self._handshake()
        self._thread = threading.Thread(target=self._await_ack, name="session-ack-%d" % self.number, daemon=True)
        self._thread.start()
        return self

    def _handshake(self):
        self.token = "%s-%d" % (self.name, self.number)

    def _await_ack(self):
        # Never acknowledged (nobody calls _on_ack), and close() does not stop this loop.
        while not self._acked and not self._exiting.is_set():
            self._poll()
            time.sleep(0.01)

    def _poll(self):
        self.polls += 1
        return self._acked

    def _on_ack(self):
        self._acked = True

    def close(self):
        self.closed = True  # the bug: should also call self._on_ack() to end the poller


def open_session(name, exiting):
    return Session(name, exiting).open()
