package demo.library.loans;

import demo.library.catalog.Catalog;

/** The lending desk: one clerk (synchronized), so readers wait for each other here. */
public class Desk {
    private final int[] onLoan;
    private long loans;

    public Desk(Catalog catalog) {
        this.onLoan = new int[catalog.size()];
    }

    public synchronized void borrow(int id) {
        stamp();
        onLoan[id]++;
        loans++;
    }

    public synchronized void giveBack(int id) {
        stamp();
        onLoan[id]--;
    }

    public synchronized long loansMade() {
        return loans;
    }

    synchronized int[] snapshot() {
        return onLoan.clone();
    }

    private void stamp() {
        long until = System.nanoTime() + 2_000;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
