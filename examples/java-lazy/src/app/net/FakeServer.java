package app.net;

/** An in-process stand-in for the game server: echoes state, drops one request in 97. */
public final class FakeServer {
    private int requests;
    private int clients;

    void accept(byte[] handshake) {
        Protocol.unframe(handshake);
        clients++;
    }

    byte[] respond(byte[] request) {
        requests++;
        if (requests % 97 == 0) {
            return null;
        }
        byte[] body = Protocol.unframe(request);
        return Protocol.frame(simulate(body));
    }

    byte[] simulate(byte[] body) {
        byte[] out = body.clone();
        for (int i = 12; i < out.length; i++) {
            out[i] = (byte) (out[i] + requests);
        }
        return out;
    }
}
