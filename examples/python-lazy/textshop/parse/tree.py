"""Parses lexer tokens into a document tree (document > paragraph > sentence > token).
Imported lazily by the render phase. Its `Token` (a leaf of the tree) is not the lexer's."""
from textshop.parse import lexer


class Token:
    """A leaf: one word, number or punctuation mark of a sentence."""

    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def render_text(self):
        return self.text


class Node:
    def __init__(self, kind, title=None):
        self.kind = kind
        self.title = title
        self.children = []

    def add(self, child):
        self.children.append(child)
        return child

    def walk(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def depth(self):
        inner = [child.depth() for child in self.children if isinstance(child, Node)]
        return 1 + (max(inner) if inner else 0)

    def __len__(self):
        return len(self.children)


class ParseError(Exception):
    pass


class Parser:
    def __init__(self):
        self.parsed = 0

    def parse(self, title, tokens):
        self._tokens = tokens
        self._pos = 0
        root = Node("document", title)
        self._document(root)
        self.parsed += 1
        return root

    def _peek(self):
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _document(self, root):
        while self._peek() is not None:
            self._skip_newlines()
            if self._peek() is None:
                break
            self._paragraph(root.add(Node("paragraph")))

    def _paragraph(self, paragraph):
        while self._peek() is not None and self._peek().kind != lexer.NEWLINE:
            self._sentence(paragraph.add(Node("sentence")))

    def _sentence(self, sentence):
        while True:
            token = self._peek()
            if token is None or token.kind == lexer.NEWLINE:
                return
            self._pos += 1
            sentence.add(Token(token.kind, token.text))
            if token.kind == lexer.PUNCT and token.text in ".!?":
                return

    def _skip_newlines(self):
        while self._peek() is not None and self._peek().kind == lexer.NEWLINE:
            self._pos += 1


def parse_document(document, tokens):
    return Parser().parse(document.title, tokens)


def count_nodes(root):
    return sum(1 for _ in root.walk())
