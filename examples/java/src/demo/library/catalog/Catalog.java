package demo.library.catalog;

import java.util.Arrays;

/** The books, sorted by title. */
public class Catalog {
    private final String[] titles;

    private Catalog(String[] titles) {
        this.titles = titles;
    }

    public static Catalog generate(int count) {
        String[] titles = new String[count];
        for (int i = 0; i < count; i++) {
            titles[i] = Title.make(i);
        }
        Arrays.sort(titles);
        return new Catalog(titles);
    }

    public int size() {
        return titles.length;
    }

    public String titleAt(int i) {
        return titles[i];
    }

    /** Simple name for a generated title. */
    public static final class Title {
        private static final String[] WORDS = {"River", "Night", "Glass", "Garden", "Stone", "Winter", "Letters", "Harbor"};

        static String make(int i) {
            return WORDS[i % WORDS.length] + " " + WORDS[(i / 8) % WORDS.length] + " " + i;
        }
    }
}
