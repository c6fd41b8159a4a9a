"""A toy suffix-stripping stemmer (imported by the index phase)."""
from textshop.util.cache import memoize

_SUFFIXES = ("ation", "ness", "ing", "ed", "ly", "s")


class Stemmer:
    def __init__(self, min_stem=3):
        self.min_stem = min_stem
        self.stemmed = 0

    def stem(self, word):
        self.stemmed += 1
        word = word.lower()
        stripped = self._strip_suffix(word)
        if self._ends_double(stripped):
            stripped = stripped[:-1]
        return stripped

    def _strip_suffix(self, word):
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and self._measure(word[: -len(suffix)]) >= self.min_stem:
                return word[: -len(suffix)]
        return word

    def _measure(self, stem):
        return len(stem)

    def _ends_double(self, word):
        return len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou"


_DEFAULT = Stemmer()


@memoize(capacity=4096)
def stem(word):
    return _DEFAULT.stem(word)


def stem_all(words):
    return [stem(word) for word in words]
