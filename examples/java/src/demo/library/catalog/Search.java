package demo.library.catalog;

/** Binary search over the catalog, written recursively so the city shows the recursion. */
public class Search {
    private final Catalog catalog;

    public Search(Catalog catalog) {
        this.catalog = catalog;
    }

    public int find(String title) {
        return bisect(title, 0, catalog.size() - 1);
    }

    private int bisect(String title, int lo, int hi) {
        if (lo > hi) {
            return -1;
        }
        int mid = (lo + hi) >>> 1;
        int c = compare(catalog.titleAt(mid), title);
        if (c == 0) {
            return mid;
        }
        return c < 0 ? bisect(title, mid + 1, hi) : bisect(title, lo, mid - 1);
    }

    private static int compare(String a, String b) {
        return a.compareTo(b);
    }
}
