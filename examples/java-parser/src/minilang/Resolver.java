package minilang;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import minilang.Tree.Assign;
import minilang.Tree.BinOp;
import minilang.Tree.Call;
import minilang.Tree.Name;
import minilang.Tree.Node;
import minilang.Tree.Print;
import minilang.Tree.Proc;
import minilang.Tree.Program;

/** Phase two: scopes and symbols; every name use becomes a reference to its definition. */
final class Resolver {
    private static final String[] BUILTINS = {"print", "len", "abs", "min", "max", "sum", "range", "input", "open", "repr"};

    static final class Symbol {
        final String name;
        final Scope scope;
        final String kind;
        final List<Reference> uses = new ArrayList<>();

        Symbol(String name, Scope scope, String kind) {
            this.name = name;
            this.scope = scope;
            this.kind = kind;
        }
    }

    static final class Reference {
        final Symbol symbol;
        final Node node;

        Reference(Symbol symbol, Node node) {
            this.symbol = symbol;
            this.node = node;
        }
    }

    static final class Scope {
        final String name;
        final Scope parent;
        final Map<String, Symbol> symbols = new HashMap<>();

        Scope(String name, Scope parent) {
            this.name = name;
            this.parent = parent;
        }

        Symbol define(String name, String kind) {
            Symbol symbol = symbols.get(name);
            if (symbol == null) {
                symbol = new Symbol(name, this, kind);
                symbols.put(name, symbol);
            }
            return symbol;
        }

        Symbol lookup(String name) {
            for (Scope scope = this; scope != null; scope = scope.parent) {
                Symbol symbol = scope.symbols.get(name);
                if (symbol != null) {
                    return symbol;
                }
            }
            return null;
        }
    }

    final List<Scope> scopes = new ArrayList<>();
    final List<Reference> references = new ArrayList<>();

    Scope resolve(Program program) {
        // A fixed cost: the builtin scope (80 symbols, whatever the input).
        Scope builtins = new Scope("builtins", null);
        for (int index = 0; index < 8 * BUILTINS.length; index++) {
            builtins.define(BUILTINS[index % BUILTINS.length] + index, "builtin");
        }
        Scope top = new Scope("program", builtins);
        for (Proc proc : program.procs) {
            top.define(proc.name, "proc");
        }
        for (Proc proc : program.procs) {
            proc(proc, top);
        }
        return top;
    }

    private void proc(Proc proc, Scope top) {
        Scope scope = new Scope(proc.name, top);
        scopes.add(scope);
        for (String param : proc.params) {
            scope.define(param, "param");
        }
        for (Node statement : proc.body) {
            if (statement instanceof Assign) {
                Assign assign = (Assign) statement;
                use(assign.value, scope);
                scope.define(assign.target.name, "local");
                reference(scope.lookup(assign.target.name), assign.target);
            } else if (statement instanceof Print) {
                use(((Print) statement).value, scope);
            }
        }
    }

    private void use(Node node, Scope scope) {
        if (node instanceof Name) {
            Name name = (Name) node;
            Symbol symbol = scope.lookup(name.name);
            reference(symbol != null ? symbol : scope.define(name.name, "free"), node);
        } else if (node instanceof BinOp) {
            use(((BinOp) node).left, scope);
            use(((BinOp) node).right, scope);
        } else if (node instanceof Call) {
            Call call = (Call) node;
            reference(scope.lookup(call.callee), node);
            for (Name arg : call.args) {
                use(arg, scope);
            }
        }
    }

    private void reference(Symbol symbol, Node node) {
        Reference reference = new Reference(symbol, node);
        references.add(reference);
        if (symbol != null) {
            symbol.uses.add(reference);
        }
    }
}
