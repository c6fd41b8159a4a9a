package app.io;

/** Little-endian encodings of arrays (overloaded by element type). */
public final class Codec {
    private Codec() {}

    public static byte[] encode(int[] values) {
        byte[] out = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            writeInt(out, i * 4, values[i]);
        }
        return out;
    }

    public static byte[] encode(float[] values) {
        byte[] out = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            writeInt(out, i * 4, Float.floatToIntBits(values[i]));
        }
        return out;
    }

    public static int[] decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length / 4);
    }

    public static int[] decode(byte[] bytes, int offset, int count) {
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            int p = offset + i * 4;
            out[i] = (bytes[p] & 0xFF) | (bytes[p + 1] & 0xFF) << 8 | (bytes[p + 2] & 0xFF) << 16
                    | (bytes[p + 3] & 0xFF) << 24;
        }
        return out;
    }

    private static void writeInt(byte[] out, int p, int v) {
        out[p] = (byte) v;
        out[p + 1] = (byte) (v >> 8);
        out[p + 2] = (byte) (v >> 16);
        out[p + 3] = (byte) (v >> 24);
    }

    public static long checksum(byte[] bytes) {
        long a = 1;
        long b = 0;
        for (byte x : bytes) {
            a = (a + (x & 0xFF)) % 65521;
            b = (b + a) % 65521;
        }
        return (b << 16) | a;
    }
}
