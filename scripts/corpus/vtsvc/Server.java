package vtsvc;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A service on the JDK's own HttpServer with a virtual thread per request (scripts/corpus/
 * vt_check.py): GET /user/N waits 50 ms in {@code fetch} (the database) and hashes the answer in
 * {@code checksum}. Prints "LISTENING" once it serves and "SERVED N" when stopped (SIGTERM).
 * Argument: the port. Compiled for Java 21.
 */
public class Server {
    static final AtomicLong served = new AtomicLong();

    static byte[] fetch(String id) throws InterruptedException {
        Thread.sleep(50);
        return ("{\"id\": " + id + ", \"name\": \"user-" + id + "\"}").getBytes();
    }

    static byte[] checksum(byte[] user) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 50; i++) {
            digest.update(user);
        }
        return digest.digest();
    }

    static void handle(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            byte[] body = checksum(fetch(path.substring(path.lastIndexOf('/') + 1)));
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
            served.incrementAndGet();
        } catch (Exception e) {
            exchange.sendResponseHeaders(500, -1);
        } finally {
            exchange.close();
        }
    }

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 256);
        server.createContext("/user/", Server::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("SERVED " + served.get())));
        server.start();
        System.out.println("LISTENING");
    }
}
