package demo.library.loans;

/** The nightly fines job: deliberately slow, so it stands out as a tall building. */
public final class Fines {
    private Fines() {}

    public static long recompute(Desk desk) {
        int[] loans = desk.snapshot();
        long total = 0;
        for (int round = 0; round < 40; round++) {
            total += sumFines(loans, round);
        }
        return total;
    }

    private static long sumFines(int[] loans, int round) {
        long s = 0;
        for (int i = 0; i < loans.length; i++) {
            s += (long) loans[i] * ((i ^ round) % 13);
            for (int k = 0; k < 50; k++) {
                s ^= (s << 1) + k;
            }
        }
        return s;
    }
}
