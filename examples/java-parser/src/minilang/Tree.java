package minilang;

import java.util.ArrayList;
import java.util.List;

/** Tokens and the syntax tree. */
final class Tree {
    private Tree() {}

    static final class Token {
        final String kind;
        final String text;
        final int line;

        Token(String kind, String text, int line) {
            this.kind = kind;
            this.text = text;
            this.line = line;
        }
    }

    interface Node {}

    static final class Program implements Node {
        final List<Proc> procs = new ArrayList<>();
    }

    static final class Proc implements Node {
        final String name;
        final List<String> params;
        final List<Node> body = new ArrayList<>();

        Proc(String name, List<String> params) {
            this.name = name;
            this.params = params;
        }
    }

    static final class Assign implements Node {
        final Name target;
        final Node value;

        Assign(Name target, Node value) {
            this.target = target;
            this.value = value;
        }
    }

    static final class Call implements Node {
        final String callee;
        final List<Name> args;

        Call(String callee, List<Name> args) {
            this.callee = callee;
            this.args = args;
        }
    }

    static final class Print implements Node {
        final Node value;

        Print(Node value) {
            this.value = value;
        }
    }

    static final class BinOp implements Node {
        final String op;
        final Node left;
        final Node right;

        BinOp(String op, Node left, Node right) {
            this.op = op;
            this.left = left;
            this.right = right;
        }
    }

    static final class Name implements Node {
        final String name;

        Name(String name) {
            this.name = name;
        }
    }

    static final class Number implements Node {
        final int value;

        Number(int value) {
            this.value = value;
        }
    }
}
