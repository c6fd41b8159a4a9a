package minilang;

import java.util.ArrayList;
import java.util.List;
import minilang.Tree.Assign;
import minilang.Tree.BinOp;
import minilang.Tree.Call;
import minilang.Tree.Name;
import minilang.Tree.Node;
import minilang.Tree.Number;
import minilang.Tree.Print;
import minilang.Tree.Proc;
import minilang.Tree.Program;
import minilang.Tree.Token;

/** Phase one: source text to tokens to a syntax tree. */
final class Parser {
    private final String text;
    private List<Token> tokens = new ArrayList<>();
    private int at;

    Parser(String text) {
        this.text = text;
    }

    Program parse() {
        tokens = tokenize();
        Program program = new Program();
        while (at < tokens.size()) {
            program.procs.add(proc());
        }
        return program;
    }

    private List<Token> tokenize() {
        List<Token> out = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int number = 0; number < lines.length; number++) {
            String line = lines[number];
            int i = 0;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (Character.isDigit(c) || Character.isLetter(c)) {
                    int start = i;
                    boolean digits = Character.isDigit(c);
                    while (i < line.length() && Character.isLetterOrDigit(line.charAt(i))) {
                        i++;
                    }
                    out.add(new Token(digits ? "number" : "word", line.substring(start, i), number + 1));
                } else {
                    out.add(new Token("op", String.valueOf(c), number + 1));
                    i++;
                }
            }
        }
        return out;
    }

    private Token next() {
        return tokens.get(at++);
    }

    private void expect(String text) {
        Token token = next();
        if (!token.text.equals(text)) {
            throw new IllegalStateException("line " + token.line + ": expected " + text + ", got " + token.text);
        }
    }

    private Proc proc() {
        expect("proc");
        String name = next().text;
        expect("(");
        List<String> params = namesUntil(")");
        expect("{");
        Proc proc = new Proc(name, params);
        while (!tokens.get(at).text.equals("}")) {
            proc.body.add(statement());
        }
        expect("}");
        return proc;
    }

    private List<String> namesUntil(String end) {
        List<String> names = new ArrayList<>();
        while (!tokens.get(at).text.equals(end)) {
            Token token = next();
            if (!token.text.equals(",")) {
                names.add(token.text);
            }
        }
        next();
        return names;
    }

    private Node statement() {
        if (tokens.get(at).text.equals("print")) {
            next();
            expect("(");
            Node value = expression();
            expect(")");
            expect(";");
            return new Print(value);
        }
        Name target = new Name(next().text);
        expect("=");
        Node value;
        if (tokens.get(at).text.equals("call")) {
            next();
            String callee = next().text;
            expect("(");
            List<Name> args = new ArrayList<>();
            for (String arg : namesUntil(")")) {
                args.add(new Name(arg));
            }
            value = new Call(callee, args);
        } else {
            value = expression();
        }
        expect(";");
        return new Assign(target, value);
    }

    private Node expression() {
        Node left = operand();
        while (tokens.get(at).text.equals("+") || tokens.get(at).text.equals("*")) {
            String op = next().text;
            left = new BinOp(op, left, operand());
        }
        return left;
    }

    private Node operand() {
        Token token = next();
        if (token.kind.equals("number")) {
            return new Number(Integer.parseInt(token.text));
        }
        return new Name(token.text);
    }
}
