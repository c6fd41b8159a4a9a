package app.net;

import app.AppContext;
import app.Feature;

/** Phase 2: multiplayer. A client exchanges packets with an in-process fake server. */
public final class NetFeature implements Feature {
    @Override
    public String name() {
        return "multiplayer";
    }

    @Override
    public void start(AppContext ctx) {
        Client client = new Client(new FakeServer());
        client.connect("lobby.example:4000");
        ctx.spawn("net", () -> netLoop(ctx, client));
    }

    static void netLoop(AppContext ctx, Client client) {
        int seq = 0;
        while (ctx.running()) {
            client.send(new Packet(Packet.Type.STATE, seq++, new byte[64]));
            if (seq % 10 == 0) {
                client.send(("chat " + seq).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            client.poll();
            ctx.sleepMillis(20);
        }
    }
}
