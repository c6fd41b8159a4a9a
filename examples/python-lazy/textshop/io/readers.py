"""Documents and a deterministic synthetic corpus (no files needed: start-up is instant)."""
import random
import threading

_SYLLABLES = ["ta", "ro", "ki", "mu", "sen", "dor", "al", "vi", "qu", "est", "lan", "op", "ni", "ux"]
_SUFFIXES = ["", "", "", "s", "ing", "ed", "ness", "ly", "ation"]


class Document:
    def __init__(self, doc_id, title, body):
        self.doc_id = doc_id
        self.title = title
        self.body = body

    def word_count(self):
        return len(self.body.split())

    def lines(self):
        return self.body.split("\n")

    def __repr__(self):
        return "Document(%d, %r)" % (self.doc_id, self.title)


class SyntheticReader:
    """Makes paragraphs of pseudo-words, the same ones for the same seed."""

    def __init__(self, seed=7):
        self._random = random.Random(seed)
        self._next_id = 0

    def _word(self):
        syllables = self._random.randint(1, 3)
        stem = "".join(self._random.choice(_SYLLABLES) for _ in range(syllables))
        return stem + self._random.choice(_SUFFIXES)

    def _sentence(self):
        words = [self._word() for _ in range(self._random.randint(4, 12))]
        if self._random.random() < 0.2:
            words.insert(self._random.randint(0, len(words)), str(self._random.randint(1, 2048)))
        sentence = " ".join(words)
        return sentence[0].upper() + sentence[1:] + self._random.choice([".", ".", "!", "?"])

    def _paragraph(self):
        return " ".join(self._sentence() for _ in range(self._random.randint(2, 5)))

    def document(self):
        self._next_id += 1
        title = " ".join(self._word() for _ in range(3)).title()
        body = "\n".join(self._paragraph() for _ in range(self._random.randint(2, 4)))
        return Document(self._next_id, title, body)

    def documents(self, count):
        for _ in range(count):
            yield self.document()


class Corpus:
    """A thread-safe supply of documents, refilled from the reader in batches."""

    def __init__(self, reader=None, batch=16):
        self._reader = reader or SyntheticReader()
        self._batch = batch
        self._ready = []
        self._lock = threading.Lock()
        self.served = 0

    def refill(self):
        self._ready.extend(self._reader.documents(self._batch))

    def take(self, count):
        with self._lock:
            while len(self._ready) < count:
                self.refill()
            taken, self._ready = self._ready[:count], self._ready[count:]
            self.served += len(taken)
            return taken

    def __iter__(self):
        while True:
            yield self.take(1)[0]


def default_corpus():
    return Corpus(SyntheticReader(seed=1234))
