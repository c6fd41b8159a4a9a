"""An inverted index with ranked search (imported by the index phase)."""
import heapq
import math
import threading

from textshop.index.stemmer import stem, stem_all
from textshop.util.text import words


class Posting:
    __slots__ = ("doc_id", "count")

    def __init__(self, doc_id, count=1):
        self.doc_id = doc_id
        self.count = count

    def merge(self, other):
        self.count += other.count


class InvertedIndex:
    def __init__(self):
        self._postings = {}
        self._lengths = {}
        self._lock = threading.Lock()

    def add(self, doc_id, text):
        counts = {}
        for term in stem_all(words(text)):
            counts[term] = counts.get(term, 0) + 1
        with self._lock:
            self._lengths[doc_id] = sum(counts.values())
            for term, count in counts.items():
                self._postings.setdefault(term, []).append(Posting(doc_id, count))

    def lookup(self, term):
        with self._lock:
            return list(self._postings.get(stem(term), ()))

    def search(self, query, k=5):
        scores = {}
        for term in query.terms():
            postings = self.lookup(term)
            for posting in postings:
                scores[posting.doc_id] = scores.get(posting.doc_id, 0.0) + self._score(posting, len(postings))
        return top_k(scores, k)

    def _score(self, posting, document_frequency):
        documents = max(1, len(self._lengths))
        idf = math.log(1.0 + documents / (1.0 + document_frequency))
        return posting.count / max(1, self._lengths.get(posting.doc_id, 1)) * idf

    def size(self):
        with self._lock:
            return len(self._lengths), len(self._postings)


class Query:
    def __init__(self, raw, required=()):
        self.raw = raw
        self.required = tuple(required)

    @classmethod
    def parse(cls, raw):
        required = [word[1:] for word in raw.split() if word.startswith("+")]
        return cls(raw.replace("+", ""), required)

    def terms(self):
        return words(self.raw)

    def matches(self, text):
        present = set(words(text))
        return all(term in present for term in self.required)


def top_k(scores, k):
    return heapq.nlargest(k, scores.items(), key=rank)


def rank(item):
    doc_id, score = item
    return (round(score, 6), -doc_id)
