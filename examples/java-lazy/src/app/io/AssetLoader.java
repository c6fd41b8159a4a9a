package app.io;

import app.util.Strings;
import app.util.collect.LruCache;
import app.util.log.Metrics;

/** Loads (here: synthesises and decodes) assets, with a cache. */
public final class AssetLoader {
    private final LruCache<String, byte[]> cache;

    public AssetLoader(int capacity) {
        cache = new LruCache<>(capacity);
    }

    public byte[] load(String name) {
        return load(name, 4096);
    }

    public byte[] load(String name, int size) {
        byte[] cached = cache.get(name);
        if (cached != null) {
            return cached;
        }
        byte[] raw = Compression.compress(synthesize(name, size));
        byte[] data = Compression.decompress(raw);
        Codec.checksum(data);
        cache.put(name, data);
        Metrics.counter("assets.loaded").add(1);
        return data;
    }

    public byte[][] loadAll(String[] names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = load(names[i]);
        }
        return out;
    }

    static byte[] synthesize(String name, int size) {
        byte[] b = new byte[size];
        int h = Strings.hash(name);
        for (int i = 0; i < size; i++) {
            b[i] = (byte) ((h >>> ((i & 3) * 8)) + i / 64);
        }
        return b;
    }

    public double hitRate() {
        return cache.hitRate();
    }
}
