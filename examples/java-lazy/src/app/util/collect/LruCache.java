package app.util.collect;

import java.util.HashMap;

/** A least-recently-used cache (a map plus a doubly linked list of entries). */
public final class LruCache<K, V> {
    /** One cached entry. */
    static final class Entry<K, V> {
        final K key;
        V value;
        Entry<K, V> prev;
        Entry<K, V> next;

        Entry(K key, V value) {
            this.key = key;
            this.value = value;
        }
    }

    private final int capacity;
    private final HashMap<K, Entry<K, V>> map = new HashMap<>();
    private Entry<K, V> first;
    private Entry<K, V> last;
    private long hits;
    private long misses;

    public LruCache(int capacity) {
        this.capacity = capacity;
    }

    public synchronized V get(K key) {
        Entry<K, V> e = map.get(key);
        if (e == null) {
            misses++;
            return null;
        }
        hits++;
        unlink(e);
        linkFirst(e);
        return e.value;
    }

    public synchronized void put(K key, V value) {
        Entry<K, V> e = map.get(key);
        if (e != null) {
            e.value = value;
            unlink(e);
            linkFirst(e);
            return;
        }
        e = new Entry<>(key, value);
        map.put(key, e);
        linkFirst(e);
        if (map.size() > capacity) {
            evict();
        }
    }

    private void evict() {
        Entry<K, V> e = last;
        unlink(e);
        map.remove(e.key);
    }

    private void unlink(Entry<K, V> e) {
        if (e.prev != null) {
            e.prev.next = e.next;
        } else {
            first = e.next;
        }
        if (e.next != null) {
            e.next.prev = e.prev;
        } else {
            last = e.prev;
        }
        e.prev = null;
        e.next = null;
    }

    private void linkFirst(Entry<K, V> e) {
        e.next = first;
        if (first != null) {
            first.prev = e;
        }
        first = e;
        if (last == null) {
            last = e;
        }
    }

    public synchronized double hitRate() {
        long total = hits + misses;
        return total == 0 ? 0 : hits / (double) total;
    }
}
