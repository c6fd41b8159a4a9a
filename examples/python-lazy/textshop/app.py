"""The textshop service: start-up, then phases that import more of the program as it runs.

Timeline (S = --phase-s, default 2 s):
  0     start-up: the worker pool lexes documents (textshop.io.readers, textshop.parse.lexer)
  S     render:   imports textshop.parse.tree, textshop.render.{theme,html,term}, textshop.io.writers
  2 S   index:    imports textshop.index.{stemmer,search,indexer}; starts the indexer thread
  3 S   sessions: imports textshop.work.session; opens a session, then restarts it every
                  --restart-s (default S); each restart leaks a thread stuck in Session._await_ack
Runs until --seconds N have passed, or until SIGINT/SIGTERM (then it exits cleanly).
"""
import argparse
import signal
import sys
import threading

from textshop.io.readers import default_corpus
from textshop.util.clock import Deadline, Ticker, monotonic_s
from textshop.work.pipeline import Pipeline
from textshop.work.pool import Job, WorkerPool


def log(message):
    sys.stdout.write("textshop: %s\n" % message)
    sys.stdout.flush()


class Options:
    def __init__(self, seconds, phase_s, restart_s, workers, docs_per_s, quiet):
        self.seconds = seconds
        self.phase_s = phase_s
        self.restart_s = restart_s if restart_s is not None else phase_s
        self.workers = workers
        self.docs_per_s = docs_per_s
        self.quiet = quiet

    @staticmethod
    def parse(argv):
        parser = argparse.ArgumentParser(prog="textshop", description=__doc__.split("\n")[0])
        parser.add_argument("--seconds", type=float, default=None, help="stop after N seconds (default: run until killed)")
        parser.add_argument("--phase-s", type=float, default=2.0, help="seconds between phases (default 2)")
        parser.add_argument("--restart-s", type=float, default=None, help="seconds between session restarts (default: --phase-s)")
        parser.add_argument("--workers", type=int, default=3, help="worker threads (default 3)")
        parser.add_argument("--docs-per-s", type=float, default=40.0, help="documents submitted per second (default 40)")
        parser.add_argument("--quiet", action="store_true", help="print phase lines only, no status lines")
        args = parser.parse_args(argv)
        return Options(args.seconds, args.phase_s, args.restart_s, max(1, args.workers), args.docs_per_s, args.quiet)


class App:
    class Phase:
        def __init__(self, number, name, at_s, action):
            self.number = number
            self.name = name
            self.at_s = at_s
            self.action = action
            self.done = False

        def due(self, elapsed_s):
            return not self.done and elapsed_s >= self.at_s

    def __init__(self, options):
        self.options = options
        self.stop_event = threading.Event()  # stop the program
        self.exiting = threading.Event()  # set last: even leaked threads end then
        self.corpus = default_corpus()
        self.pipeline = Pipeline()
        self.pool = WorkerPool(options.workers)
        self.indexer = None
        self.sessions = []
        self.restarts = 0
        self.submitted = 0
        s = options.phase_s
        self.phases = [
            App.Phase(2, "render", s, self.enter_render),
            App.Phase(3, "index", 2 * s, self.enter_index),
            App.Phase(4, "sessions", 3 * s, self.enter_sessions),
        ]
        self._restart_ticker = None

    def run(self):
        self.started_s = monotonic_s()
        deadline = Deadline(self.options.seconds)
        self.pool.start()
        log("phase 1 start-up at 0.00 s (workers: %d; lexing only)" % self.options.workers)
        status = Ticker(1.0, self.started_s)
        feed_period_s = 1.0 / self.options.docs_per_s if self.options.docs_per_s > 0 else None
        next_feed_s = self.started_s
        while not self.stop_event.is_set() and not deadline.expired():
            now_s = monotonic_s()
            elapsed_s = now_s - self.started_s
            for phase in self.phases:
                if phase.due(elapsed_s):
                    self.enter(phase, elapsed_s)
            if self._restart_ticker is not None and self._restart_ticker.due(now_s):
                self.restart()
            if feed_period_s is not None and now_s >= next_feed_s:
                next_feed_s = self.feed(now_s, next_feed_s, feed_period_s)
            if status.due(now_s) and not self.options.quiet:
                self.report(elapsed_s)
            self.stop_event.wait(min(0.02, deadline.remaining()))
        return self.shutdown()

    def enter(self, phase, elapsed_s):
        phase.done = True
        detail = phase.action()
        log("phase %d %s at %.2f s (%s)" % (phase.number, phase.name, elapsed_s, detail))

    def feed(self, now_s, next_feed_s, period_s):
        due = int((now_s - next_feed_s) / period_s) + 1
        for document in self.corpus.take(min(due, 16)):
            if self.pool.submit(Job(self.pipeline, document)):
                self.submitted += 1
        return next_feed_s + due * period_s

    def enter_render(self):
        from textshop.io.writers import Sink

        self.sink = Sink()
        self.pipeline.enable_render(self.sink)
        return "imported textshop.parse.tree, textshop.render.html, textshop.render.term"

    def enter_index(self):
        from textshop.index.indexer import BackgroundIndexer

        self.indexer = BackgroundIndexer(self.corpus, self.stop_event).start()
        return "imported textshop.index.search, textshop.index.stemmer; indexer thread started"

    def enter_sessions(self):
        from textshop.work.session import open_session

        self._open_session = open_session
        self.sessions.append(open_session("client", self.exiting))
        self._restart_ticker = Ticker(self.options.restart_s)
        return "imported textshop.work.session; session 1 open, restart every %.1f s" % self.options.restart_s

    def restart(self):
        old = self.sessions[-1]
        old.close()  # leaks old's ack thread (see textshop.work.session)
        self.sessions.append(self._open_session("client", self.exiting))
        self.restarts += 1
        log("restart %d: session %d replaced by %d (leaked ack threads: %d)" % (
            self.restarts, old.number, self.sessions[-1].number, self.leaked_threads()))

    def leaked_threads(self):
        return sum(1 for session in self.sessions if session.closed)

    def report(self, elapsed_s):
        done, failed = self.pool.counters.snapshot()
        line = "t=%.0f s: %d documents done, %d failed, %d pending" % (elapsed_s, done, failed, self.pool.pending())
        if self.indexer is not None:
            line += ", indexed %(documents)d (%(terms)d terms)" % self.indexer.stats()
        log(line)

    def shutdown(self):
        elapsed_s = monotonic_s() - self.started_s
        self.stop_event.set()
        self.pool.stop()
        if self.indexer is not None:
            self.indexer.join(2.0)
        self.exiting.set()
        for session in self.sessions:
            if session._thread is not None:
                session._thread.join(1.0)
        done, _ = self.pool.counters.snapshot()
        log("done after %.1f s: %d documents, %d restarts, %d leaked threads" % (
            elapsed_s, done, self.restarts, self.leaked_threads()))
        return 0


def main(argv=None):
    options = Options.parse(sys.argv[1:] if argv is None else argv)
    app = App(options)

    def on_signal(signum, frame):
        app.stop_event.set()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, on_signal)
    return app.run()
