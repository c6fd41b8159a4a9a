package minilang;

import minilang.Tree.Assign;
import minilang.Tree.Call;
import minilang.Tree.Node;
import minilang.Tree.Proc;
import minilang.Tree.Program;

/** {@code java minilang.Main --procs N}: generate N procedures, parse, resolve, say what was made. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        int procs = 100;
        long seed = 16;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--procs")) {
                procs = Integer.parseInt(args[i + 1]);
            } else if (args[i].equals("--seed")) {
                seed = Long.parseLong(args[i + 1]);
            }
        }
        String text = Source.generate(procs, seed);
        Program program = new Parser(text).parse();
        Resolver resolver = new Resolver();
        resolver.resolve(program);
        int calls = 0;
        for (Proc proc : program.procs) {
            for (Node statement : proc.body) {
                if (statement instanceof Assign && ((Assign) statement).value instanceof Call) {
                    calls++;
                }
            }
        }
        System.out.println("minilang: " + program.procs.size() + " procs, " + calls + " calls, "
                + resolver.scopes.size() + " scopes, " + resolver.references.size() + " references");
    }
}
