package app.net;

import app.util.collect.RingBuffer;
import app.util.log.Metrics;

/** The game client's connection (to a simulated server: no sockets needed). */
public final class Client {
    private final FakeServer server;
    private final RingBuffer<Packet> inbox = new RingBuffer<>(64);
    private String address;
    private int reconnects;

    public Client(FakeServer server) {
        this.server = server;
    }

    public void connect(String addr) {
        this.address = addr;
        server.accept(Protocol.handshake(addr));
    }

    public void send(Packet p) {
        byte[] reply = server.respond(Protocol.frame(p.encode()));
        if (reply == null) {
            reconnect();
            return;
        }
        inbox.push(Packet.parse(Protocol.unframe(reply)));
    }

    public void send(byte[] raw) {
        send(new Packet(Packet.Type.CHAT, 0, raw));
    }

    public int poll() {
        int n = 0;
        while (!inbox.isEmpty()) {
            Packet p = inbox.pop();
            if (p != null && p.valid()) {
                n++;
            }
        }
        Metrics.counter("net.packets").add(n);
        return n;
    }

    void reconnect() {
        reconnects++;
        connect(address);
    }
}
