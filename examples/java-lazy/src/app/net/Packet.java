package app.net;

import app.io.Codec;

/** A typed packet with a header and a payload. */
public final class Packet {
    /** Packet types. */
    public enum Type { HELLO, STATE, CHAT }

    /** The fixed-size header. */
    static final class Header {
        final Type type;
        final int seq;
        final int length;

        Header(Type type, int seq, int length) {
            this.type = type;
            this.seq = seq;
            this.length = length;
        }

        int[] words() {
            return new int[] {type.ordinal(), seq, length};
        }
    }

    final Header header;
    final byte[] payload;

    public Packet(Type type, int seq, byte[] payload) {
        this.header = new Header(type, seq, payload.length);
        this.payload = payload;
    }

    public byte[] encode() {
        byte[] head = Codec.encode(header.words());
        byte[] out = new byte[head.length + payload.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(payload, 0, out, head.length, payload.length);
        return out;
    }

    public static Packet parse(byte[] bytes) {
        int[] h = Codec.decode(bytes, 0, 3);
        int len = Math.max(0, Math.min(h[2], bytes.length - 12));
        byte[] payload = new byte[len];
        System.arraycopy(bytes, 12, payload, 0, len);
        Type[] types = Type.values();
        return new Packet(types[Math.floorMod(h[0], types.length)], h[1], payload);
    }

    boolean valid() {
        return header.length == payload.length;
    }
}
