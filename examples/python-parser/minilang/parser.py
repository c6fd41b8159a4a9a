"""Phase one: source text to tokens to a syntax tree."""

import re

from minilang.tree import Assign, BinOp, Call, Name, Number, Print, Proc, Program, Token

TOKEN = re.compile(r"\s*(?:(\d+)|(\w+)|(.))")


class Parser:
    def __init__(self, text):
        self.text = text
        self.tokens = []
        self.at = 0

    def parse(self):
        self.tokens = self.tokenize()
        program = Program()
        while self.at < len(self.tokens):
            program.procs.append(self.proc())
        return program

    def tokenize(self):
        tokens = []
        for line_number, line in enumerate(self.text.splitlines(), 1):
            for number, word, other in TOKEN.findall(line):
                if number:
                    tokens.append(Token("number", number, line_number))
                elif word:
                    tokens.append(Token("word", word, line_number))
                elif other.strip():
                    tokens.append(Token("op", other, line_number))
        return tokens

    def next(self):
        token = self.tokens[self.at]
        self.at += 1
        return token

    def expect(self, text):
        token = self.next()
        if token.text != text:
            raise SyntaxError("line %d: expected %r, got %r" % (token.line, text, token.text))
        return token

    def proc(self):
        self.expect("proc")
        name = self.next().text
        self.expect("(")
        params = self.names_until(")")
        self.expect("{")
        proc = Proc(name, params)
        while self.tokens[self.at].text != "}":
            proc.body.append(self.statement())
        self.expect("}")
        return proc

    def names_until(self, end):
        names = []
        while self.tokens[self.at].text != end:
            token = self.next()
            if token.text != ",":
                names.append(token.text)
        self.next()
        return names

    def statement(self):
        if self.tokens[self.at].text == "print":
            self.next()
            self.expect("(")
            value = self.expression()
            self.expect(")")
            self.expect(";")
            return Print(value)
        target = Name(self.next().text)
        self.expect("=")
        if self.tokens[self.at].text == "call":
            self.next()
            callee = self.next().text
            self.expect("(")
            args = [Name(text) for text in self.names_until(")")]
            value = Call(callee, args)
        else:
            value = self.expression()
        self.expect(";")
        return Assign(target, value)

    def expression(self):
        left = self.operand()
        while self.tokens[self.at].text in ("+", "*"):
            op = self.next().text
            left = BinOp(op, left, self.operand())
        return left

    def operand(self):
        token = self.next()
        if token.kind == "number":
            return Number(int(token.text))
        return Name(token.text)
