package demo.library;

import demo.library.catalog.Catalog;
import demo.library.catalog.Search;
import demo.library.loans.Desk;
import demo.library.loans.Fines;
import java.util.ArrayList;
import java.util.List;

/**
 * A small Java program to watch in highrise: a lending library where reader threads search the
 * catalog (recursive index walks), borrow and return books at a desk (one synchronized desk, so
 * readers queue for it), and a nightly job recomputes fines (slow on purpose: a tall building).
 * Run with the agent: examples/java/run.sh [SECONDS] (0 = until interrupted).
 */
public class LibraryApp {
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 0;
        long deadline = seconds > 0 ? System.nanoTime() + (long) (seconds * 1e9) : Long.MAX_VALUE;
        Catalog catalog = Catalog.generate(5000);
        Desk desk = new Desk(catalog);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            final int reader = i;
            Thread t = new Thread(() -> readerLoop(reader, catalog, desk, deadline), "reader-" + i);
            threads.add(t);
            t.start();
        }
        Thread nightly = new Thread(() -> {
            while (System.nanoTime() < deadline) {
                Fines.recompute(desk);
                pause(200);
            }
        }, "nightly-fines");
        threads.add(nightly);
        nightly.start();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("library closed: " + desk.loansMade() + " loans");
    }

    static void readerLoop(int reader, Catalog catalog, Desk desk, long deadline) {
        Search search = new Search(catalog);
        int n = 0;
        while (System.nanoTime() < deadline) {
            String title = catalog.titleAt((int) Math.floorMod(reader * 7919L + n * 104729L, (long) catalog.size()));
            int id = search.find(title);
            if (id >= 0) {
                desk.borrow(id);
                desk.giveBack(id);
            }
            n++;
            if (n % 10 == 0) {
                pause(1);
            }
        }
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
