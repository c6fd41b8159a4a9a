"""A small thread-safe LRU cache with statistics, and a memoizing decorator."""
import functools
import threading
from collections import OrderedDict


class LRUCache:
    class Stats:
        def __init__(self):
            self.hits = 0
            self.misses = 0

        def hit(self):
            self.hits += 1

        def miss(self):
            self.misses += 1

        def ratio(self):
            total = self.hits + self.misses
            return self.hits / total if total else 0.0

    def __init__(self, capacity=256):
        self.capacity = capacity
        self._items = OrderedDict()
        self._lock = threading.Lock()
        self.stats = LRUCache.Stats()

    def get(self, key, default=None):
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                self.stats.hit()
                return self._items[key]
            self.stats.miss()
            return default

    def put(self, key, value):
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            self._evict()

    def _evict(self):
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def clear(self):
        with self._lock:
            self._items.clear()

    def __len__(self):
        return len(self._items)


def memoize(capacity=128):
    """A decorator caching a one-argument function in an LRUCache."""

    def decorate(function):
        cache = LRUCache(capacity)

        @functools.wraps(function)
        def cached(arg):
            value = cache.get(arg)
            if value is None:
                value = function(arg)
                cache.put(arg, value)
            return value

        cached.cache = cache
        return cached

    return decorate
