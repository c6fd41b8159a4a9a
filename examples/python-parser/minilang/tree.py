"""Tokens and the syntax tree."""


class Token:
    def __init__(self, kind, text, line):
        self.kind = kind
        self.text = text
        self.line = line


class Node:
    """A node of the syntax tree (as the Java example's interface)."""


class Program(Node):
    def __init__(self):
        self.procs = []


class Proc(Node):
    def __init__(self, name, params):
        self.name = name
        self.params = params
        self.body = []


class Assign(Node):
    def __init__(self, target, value):
        self.target = target
        self.value = value


class Call(Node):
    def __init__(self, callee, args):
        self.callee = callee
        self.args = args


class Print(Node):
    def __init__(self, value):
        self.value = value


class BinOp(Node):
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right


class Name(Node):
    def __init__(self, name):
        self.name = name


class Number(Node):
    def __init__(self, value):
        self.value = value
