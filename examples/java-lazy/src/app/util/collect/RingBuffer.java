package app.util.collect;

/** A fixed-capacity FIFO that overwrites its oldest element when full. */
public final class RingBuffer<T> {
    private final Object[] items;
    private int head;
    private int size;

    public RingBuffer(int capacity) {
        items = new Object[capacity];
    }

    public void push(T item) {
        items[(head + size) % items.length] = item;
        if (size < items.length) {
            size++;
        } else {
            head = (head + 1) % items.length;
        }
    }

    @SuppressWarnings("unchecked")
    public T pop() {
        if (size == 0) {
            return null;
        }
        T item = (T) items[head];
        items[head] = null;
        head = (head + 1) % items.length;
        size--;
        return item;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public Object[] toArray() {
        Object[] out = new Object[size];
        for (int i = 0; i < size; i++) {
            out[i] = items[(head + i) % items.length];
        }
        return out;
    }
}
