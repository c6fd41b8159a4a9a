"""The background indexer thread: takes documents from the corpus and indexes them, and
answers a few searches now and then."""
import threading

from textshop.index.search import InvertedIndex, Query


class BackgroundIndexer:
    def __init__(self, corpus, stop_event, batch=4, pause_s=0.05, max_documents=2000):
        self.corpus = corpus
        self.index = InvertedIndex()
        self.stop_event = stop_event
        self.batch = batch
        self.pause_s = pause_s
        self.max_documents = max_documents  # then start a fresh index: memory stays bounded
        self.generation = 1
        self.indexed = 0
        self.searches = 0
        self._thread = threading.Thread(target=self.run, name="indexer", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def run(self):
        while not self.stop_event.is_set():
            self._batch()
            if self.indexed % 32 < self.batch:
                self._search_a_little()
            self.stop_event.wait(self.pause_s)

    def _batch(self):
        if self.index.size()[0] >= self.max_documents:
            self._rotate()
        for document in self.corpus.take(self.batch):
            self._index_document(document)

    def _rotate(self):
        self.index = InvertedIndex()
        self.generation += 1

    def _index_document(self, document):
        self.index.add(document.doc_id, document.title + "\n" + document.body)
        self.indexed += 1

    def _search_a_little(self):
        for raw in ("taro kimu", "+sen dor", "quest lan"):
            self.index.search(Query.parse(raw))
            self.searches += 1

    def join(self, timeout_s):
        self._thread.join(timeout_s)

    def stats(self):
        documents, terms = self.index.size()
        return {"documents": documents, "terms": terms, "searches": self.searches}
