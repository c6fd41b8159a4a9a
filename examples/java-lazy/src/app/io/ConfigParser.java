package app.io;

import app.util.Strings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An INI-style parser: {@code [section]} and {@code key = value} lines. */
public final class ConfigParser {
    /** One parsed section. */
    public static final class Section {
        public final String name;
        final Map<String, String> values = new LinkedHashMap<>();

        Section(String name) {
            this.name = name;
        }

        public String value(String key) {
            return values.get(key);
        }

        public int intValue(String key, int missing) {
            String v = values.get(key);
            try {
                return v == null ? missing : Integer.parseInt(v);
            } catch (NumberFormatException e) {
                return missing;
            }
        }

        public List<String> list(String key) {
            List<String> out = new ArrayList<>();
            String v = values.get(key);
            if (v != null) {
                for (String s : Strings.split(v, ',')) {
                    out.add(Strings.trim(s));
                }
            }
            return out;
        }
    }

    public Section parse(String text) {
        Section current = new Section("");
        for (String line : text.split("\n")) {
            Section next = parseLine(current, line);
            if (next != null) {
                current = next;
            }
        }
        return current;
    }

    Section parseLine(Section current, String line) {
        String l = Strings.trim(line);
        if (l.isEmpty() || l.startsWith("#")) {
            return null;
        }
        if (l.startsWith("[") && l.endsWith("]")) {
            return new Section(l.substring(1, l.length() - 1));
        }
        int eq = l.indexOf('=');
        if (eq > 0) {
            current.values.put(Strings.trim(l.substring(0, eq)), Strings.trim(l.substring(eq + 1)));
        }
        return null;
    }
}
