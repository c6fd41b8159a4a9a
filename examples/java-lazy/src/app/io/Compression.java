package app.io;

import java.io.ByteArrayOutputStream;

/** Run-length compression. */
public final class Compression {
    private Compression() {}

    public static byte[] compress(byte[] in) {
        return runLength(in);
    }

    static byte[] runLength(byte[] in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length / 2 + 8);
        int i = 0;
        while (i < in.length) {
            int run = 1;
            while (i + run < in.length && in[i + run] == in[i] && run < 255) {
                run++;
            }
            out.write(run);
            out.write(in[i]);
            i += run;
        }
        return out.toByteArray();
    }

    public static byte[] decompress(byte[] in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length * 2);
        for (int i = 0; i + 1 < in.length; i += 2) {
            int run = in[i] & 0xFF;
            for (int k = 0; k < run; k++) {
                out.write(in[i + 1]);
            }
        }
        return out.toByteArray();
    }
}
