"""A fixed pool of worker threads taking jobs from a queue."""
import queue
import threading


class Job:
    __slots__ = ("pipeline", "document")

    def __init__(self, pipeline, document):
        self.pipeline = pipeline
        self.document = document

    def run(self):
        return self.pipeline.process(self.document)


class WorkerPool:
    class Counters:
        def __init__(self):
            self._lock = threading.Lock()
            self.done = 0
            self.failed = 0

        def add(self, ok):
            with self._lock:
                if ok:
                    self.done += 1
                else:
                    self.failed += 1

        def snapshot(self):
            with self._lock:
                return self.done, self.failed

    def __init__(self, workers=3, max_pending=256):
        self.workers = workers
        self._jobs = queue.Queue(maxsize=max_pending)
        self._stop = threading.Event()
        self._threads = []
        self.counters = WorkerPool.Counters()

    def start(self):
        for index in range(self.workers):
            thread = threading.Thread(target=self._loop, name="worker-%d" % index, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def submit(self, job):
        try:
            self._jobs.put_nowait(job)
            return True
        except queue.Full:
            return False

    def pending(self):
        return self._jobs.qsize()

    def _loop(self):
        while not self._stop.is_set():
            try:
                job = self._jobs.get(timeout=0.1)
            except queue.Empty:
                continue
            self._handle(job)

    def _handle(self, job):
        try:
            job.run()
            self.counters.add(True)
        except Exception:
            self.counters.add(False)

    def stop(self, timeout_s=2.0):
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout_s)
