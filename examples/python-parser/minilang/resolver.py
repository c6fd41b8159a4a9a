"""Phase two: scopes and symbols; every name use becomes a reference to its definition."""

from minilang.tree import Assign, BinOp, Call, Name, Print

BUILTINS = ["print", "len", "abs", "min", "max", "sum", "range", "input", "open", "repr"] * 8


class Symbol:
    def __init__(self, name, scope, kind):
        self.name = name
        self.scope = scope
        self.kind = kind
        self.uses = []


class Reference:
    def __init__(self, symbol, node):
        self.symbol = symbol
        self.node = node


class Scope:
    def __init__(self, name, parent):
        self.name = name
        self.parent = parent
        self.symbols = {}

    def define(self, name, kind):
        symbol = self.symbols.get(name)
        if symbol is None:
            symbol = Symbol(name, self, kind)
            self.symbols[name] = symbol
        return symbol

    def lookup(self, name):
        scope = self
        while scope is not None:
            if name in scope.symbols:
                return scope.symbols[name]
            scope = scope.parent
        return None


class Resolver:
    def __init__(self):
        self.scopes = []
        self.references = []

    def resolve(self, program):
        # A fixed cost: the builtin scope (80 symbols, whatever the input).
        builtins = Scope("builtins", None)
        for index, name in enumerate(BUILTINS):
            builtins.define("%s%d" % (name, index), "builtin")
        top = Scope("program", builtins)
        for proc in program.procs:
            top.define(proc.name, "proc")
        for proc in program.procs:
            self.proc(proc, top)
        return top

    def proc(self, proc, top):
        scope = Scope(proc.name, top)
        self.scopes.append(scope)
        for param in proc.params:
            scope.define(param, "param")
        for statement in proc.body:
            if isinstance(statement, Assign):
                self.use(statement.value, scope)
                scope.define(statement.target.name, "local")
                self.reference(scope.lookup(statement.target.name), statement.target)
            elif isinstance(statement, Print):
                self.use(statement.value, scope)

    def use(self, node, scope):
        if isinstance(node, Name):
            symbol = scope.lookup(node.name) or scope.define(node.name, "free")
            self.reference(symbol, node)
        elif isinstance(node, BinOp):
            self.use(node.left, scope)
            self.use(node.right, scope)
        elif isinstance(node, Call):
            self.reference(scope.lookup(node.callee), node)
            for arg in node.args:
                self.use(arg, scope)

    def reference(self, symbol, node):
        reference = Reference(symbol, node)
        self.references.append(reference)
        if symbol is not None:
            symbol.uses.append(reference)
