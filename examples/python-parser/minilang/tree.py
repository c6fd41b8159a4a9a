"""Tokens and the syntax tree."""


class Token:
    def __init__(self, kind, text, line):
        self.kind = kind
        self.text = text
        self.line = line


class Program:
    def __init__(self):
        self.procs = []


class Proc:
    def __init__(self, name, params):
        self.name = name
        self.params = params
        self.body = []


class Assign:
    def __init__(self, target, value):
        self.target = target
        self.value = value


class Call:
    def __init__(self, callee, args):
        self.callee = callee
        self.args = args


class Print:
    def __init__(self, value):
        self.value = value


class BinOp:
    def __init__(self, op, left, right):
        self.op = op
        self.left = left
        self.right = right


class Name:
    def __init__(self, name):
        self.name = name


class Number:
    def __init__(self, value):
        self.value = value
