package app.net;

import app.io.Codec;
import java.nio.charset.StandardCharsets;

/** Framing: a length and a checksum around each packet. */
final class Protocol {
    static final int VERSION = 3;

    private Protocol() {}

    static byte[] handshake(String addr) {
        return frame(("HELLO v" + VERSION + " " + addr).getBytes(StandardCharsets.UTF_8));
    }

    static byte[] frame(byte[] body) {
        byte[] head = Codec.encode(new int[] {body.length, (int) Codec.checksum(body)});
        byte[] out = new byte[head.length + body.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    static byte[] unframe(byte[] framed) {
        int[] head = Codec.decode(framed, 0, 2);
        byte[] body = new byte[Math.min(head[0], framed.length - 8)];
        System.arraycopy(framed, 8, body, 0, body.length);
        if ((int) Codec.checksum(body) != head[1]) {
            throw new IllegalStateException("bad checksum");
        }
        return body;
    }
}
