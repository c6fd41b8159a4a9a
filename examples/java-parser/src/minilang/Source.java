package minilang;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** The input: {@code procs} procedures of generated code, seeded (same arguments, same program). */
final class Source {
    private static final String[] NAMES = {"a", "b", "c", "d", "e", "f", "g", "h", "k", "m", "n", "p", "q", "r", "s", "t"};

    private Source() {}

    static String generate(int procs, long seed) {
        Random rng = new Random(seed);
        StringBuilder out = new StringBuilder();
        for (int index = 0; index < procs; index++) {
            List<String> names = new ArrayList<>(List.of(NAMES));
            Collections.shuffle(names, rng);
            List<String> params = names.subList(0, rng.nextInt(4));
            out.append("proc p").append(index).append('(').append(String.join(", ", params)).append(") {\n");
            int statements = 3 + rng.nextInt(10);
            for (int s = 0; s < statements; s++) {
                String target = pick(rng);
                if (index > 0 && rng.nextDouble() < 0.4) {
                    List<String> args = new ArrayList<>();
                    int count = rng.nextInt(4);
                    for (int a = 0; a < count; a++) {
                        args.add(pick(rng));
                    }
                    out.append("  ").append(target).append(" = call p").append(rng.nextInt(index))
                            .append('(').append(String.join(", ", args)).append(");\n");
                } else {
                    out.append("  ").append(target).append(" = ").append(pick(rng)).append(" + ")
                            .append(rng.nextInt(100)).append(" * ").append(pick(rng)).append(";\n");
                }
            }
            out.append("  print(").append(pick(rng)).append(");\n}\n");
        }
        return out.toString();
    }

    private static String pick(Random rng) {
        return NAMES[rng.nextInt(NAMES.length)];
    }
}
