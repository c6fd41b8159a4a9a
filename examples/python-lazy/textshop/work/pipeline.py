"""What a worker does with one document. Start-up only lexes; the render phase adds parsing and
rendering (importing textshop.parse.tree and textshop.render.* only then)."""
import threading

from textshop.parse.lexer import Lexer
from textshop.util.text import words


class Pipeline:
    def __init__(self, sink=None):
        self.sink = sink
        self.lexer = Lexer()
        self.render_enabled = False
        self._local = threading.local()
        self.word_total = 0

    def enable_render(self, sink):
        """The render phase: import the tree and the renderers now, not at start-up."""
        from textshop.parse import tree
        from textshop.render import html, term

        self._tree = tree
        self._html = html
        self._term = term
        self.sink = sink
        self.render_enabled = True

    def process(self, document):
        tokens = self.lex(document)
        if not self.render_enabled:
            self.count(document)
            return len(tokens)
        root = self.parse(document, tokens)
        self.render(root)
        return self._tree.count_nodes(root)

    def lex(self, document):
        return self.lexer.tokens(document.title + "\n" + document.body)

    def count(self, document):
        self.word_total += len(words(document.body))

    def parse(self, document, tokens):
        return self._tree.parse_document(document, tokens)

    def _renderers(self):
        renderers = getattr(self._local, "renderers", None)
        if renderers is None:
            renderers = self._local.renderers = (self._html.Renderer(), self._term.Renderer(width=60))
        return renderers

    def render(self, root):
        html_renderer, term_renderer = self._renderers()
        self.sink.write("html", html_renderer.render(root))
        self.sink.write("term", term_renderer.render(root))
