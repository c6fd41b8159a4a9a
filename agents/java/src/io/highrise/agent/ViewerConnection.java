package io.highrise.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * The session's socket to the viewer, used by the sender thread only: the connection, the wire's
 * bytes written out, the viewer's one answer frame read without blocking (a Reject ends the
 * session with its reason, {@link Rejected}), and the graceful close SPEC asks for (our side shut
 * down, the viewer's read to its end).
 */
final class ViewerConnection {
    static final int CONNECT_TIMEOUT_MS = 2000;
    static final int CLOSE_READ_TIMEOUT_MS = 2000;

    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private final byte[] answer = new byte[512];
    private int answerLen;
    private boolean answered;

    void connect(String host, int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    /** Writes what the wire holds and empties it. */
    void flush(Wire wire) throws IOException {
        if (wire.length() > 0) {
            out.write(wire.array(), 0, wire.length());
            wire.clear();
        }
    }

    /** Reads the viewer's one answer frame without blocking; a Reject ends the session. */
    void readAnswer() throws IOException {
        if (answered) {
            return;
        }
        int avail = in.available();
        while (avail > 0 && answerLen < answer.length) {
            int n = in.read(answer, answerLen, Math.min(avail, answer.length - answerLen));
            if (n < 0) {
                throw new IOException("viewer closed the connection");
            }
            answerLen += n;
            avail = in.available();
        }
        checkAnswer();
    }

    /** Reads the answer frame gathered so far, once whole; a Reject ends the session. */
    private void checkAnswer() throws IOException {
        if (answered || answerLen < 4) {
            return;
        }
        int len = (answer[0] & 0xFF) | (answer[1] & 0xFF) << 8 | (answer[2] & 0xFF) << 16 | (answer[3] & 0xFF) << 24;
        if (len < 0 || len > answer.length - 4) {
            answered = true; // not an answer we can read; ignore it
            return;
        }
        if (answerLen < 4 + len) {
            return;
        }
        answered = true;
        if (len > 0 && answer[4] == 1) {
            String reason = describeReject(answer, 5, 4 + len);
            throw new Rejected("the viewer rejected the session: " + reason);
        }
    }

    /** The viewer answered Reject (bad version, a missing or wrong token, ...). */
    static final class Rejected extends IOException {
        private static final long serialVersionUID = 1L;

        Rejected(String message) {
            super(message);
        }
    }

    /** Best-effort reading of a Reject's reason (after the tag: version varint, string). */
    static String describeReject(byte[] b, int pos, int end) {
        try {
            long[] cursor = {pos};
            readVarint(b, cursor, end); // viewer's protocol version
            int n = (int) readVarint(b, cursor, end);
            int p = (int) cursor[0];
            if (n < 0 || p + n > end) {
                return "(unreadable reason)";
            }
            return new String(b, p, n, StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            return "(unreadable reason)";
        }
    }

    static long readVarint(byte[] b, long[] cursor, int end) {
        int p = (int) cursor[0];
        if (p >= end) {
            throw new IllegalArgumentException("short");
        }
        int first = b[p++] & 0xFF;
        int size = first < 251 ? 0 : first == 251 ? 2 : first == 252 ? 4 : 8;
        if (p + size > end) {
            throw new IllegalArgumentException("short");
        }
        long v = first < 251 ? first : 0;
        for (int i = 0; i < size; i++) {
            v |= (long) (b[p + i] & 0xFF) << (8 * i);
        }
        cursor[0] = p + size;
        return v;
    }

    /**
     * The graceful close, after Goodbye went out: shut down our side and read the viewer's side
     * to its end (at most {@link #CLOSE_READ_TIMEOUT_MS}).
     */
    void shutdownAndDrain() throws IOException {
        socket.shutdownOutput();
        socket.setSoTimeout(CLOSE_READ_TIMEOUT_MS);
        byte[] sink = new byte[1024];
        long deadline = System.nanoTime() + CLOSE_READ_TIMEOUT_MS * 1_000_000L;
        try {
            int n;
            while (System.nanoTime() < deadline && (n = in.read(sink)) >= 0) {
                // A short program may be done before the answer came: a Reject (a missing
                // token, ...) is still said. Anything else is discarded.
                int take = answered ? 0 : Math.min(n, answer.length - answerLen);
                System.arraycopy(sink, 0, answer, answerLen, take);
                answerLen += take;
                checkAnswer();
            }
        } catch (SocketTimeoutException ignored) {
            // the viewer kept its side open; close anyway
        }
    }

    /** Closes the socket, whatever state it is in (the session is over). */
    void close() {
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
