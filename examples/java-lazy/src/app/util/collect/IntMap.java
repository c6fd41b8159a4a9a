package app.util.collect;

/** An open-addressing int → int map (linear probing). */
public final class IntMap {
    private int[] keys;
    private int[] values;
    private boolean[] used;
    private int size;

    public IntMap(int capacity) {
        int c = Integer.highestOneBit(Math.max(4, capacity) * 2 - 1);
        keys = new int[c];
        values = new int[c];
        used = new boolean[c];
    }

    public void put(int key, int value) {
        if (size * 2 >= keys.length) {
            grow();
        }
        int i = indexOf(key);
        if (!used[i]) {
            used[i] = true;
            keys[i] = key;
            size++;
        }
        values[i] = value;
    }

    public int get(int key, int missing) {
        int i = indexOf(key);
        return used[i] ? values[i] : missing;
    }

    private int indexOf(int key) {
        int mask = keys.length - 1;
        int i = (key * 0x9E3779B9) & mask;
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        int[] k = keys;
        int[] v = values;
        boolean[] u = used;
        keys = new int[k.length * 2];
        values = new int[k.length * 2];
        used = new boolean[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i]);
            }
        }
    }

    public int size() {
        return size;
    }
}
