"""Renders a document tree as HTML. Its `Renderer` is not `textshop.render.term.Renderer`."""
from textshop.parse.tree import Node
from textshop.render.theme import default_theme, make_style

_ESCAPES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;"}


class Escaper:
    def __init__(self, table=None):
        self.table = dict(table or _ESCAPES)

    def escape(self, text):
        if not any(char in self.table for char in text):
            return text
        return "".join(self.table.get(char, char) for char in text)


class Renderer:
    def __init__(self, theme=None):
        self.theme = theme or default_theme()
        self.escaper = Escaper()
        self.Style = make_style(self.theme)

    def render(self, root):
        parts = ["<article>", "<h1>%s</h1>" % self.escaper.escape(page_title(root))]
        for child in root.children:
            parts.append(self._node(child))
        parts.append("</article>")
        return "\n".join(parts)

    def _node(self, node):
        if node.kind == "paragraph":
            return "<p>" + " ".join(self._sentence(s) for s in node.children) + "</p>"
        return self._sentence(node)

    def _sentence(self, sentence):
        return "".join(self._token(token) for token in sentence.children)

    def _token(self, token):
        if isinstance(token, Node):
            return self._sentence(token)
        text = self.escaper.escape(token.text)
        if token.kind == "number":
            style = self.Style(token.kind)
            return '<span class="%s">%s</span>' % (style.color, text)
        return text if token.kind == "punct" else " " + text


def page_title(root):
    return root.title or "untitled"


def render_html(root):
    return Renderer().render(root)
