package app.util;

/** String helpers (overloads on purpose: each is its own building). */
public final class Strings {
    private Strings() {}

    public static String pad(String s, int width) {
        StringBuilder b = new StringBuilder(s);
        while (b.length() < width) {
            b.append(' ');
        }
        return b.toString();
    }

    public static String pad(int value, int width) {
        return pad(Integer.toString(value), width);
    }

    public static String join(String[] parts, char sep) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                b.append(sep);
            }
            b.append(parts[i]);
        }
        return b.toString();
    }

    public static String[] split(String s, char sep) {
        return s.split(java.util.regex.Pattern.quote(String.valueOf(sep)));
    }

    public static int hash(String s) {
        return hash(s.toCharArray());
    }

    public static int hash(char[] chars) {
        int h = 0x811c9dc5;
        for (char c : chars) {
            h = (h ^ c) * 0x01000193;
        }
        return h;
    }

    public static String trim(String s) {
        return s.trim();
    }
}
