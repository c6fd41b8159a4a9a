"""Renders a document tree for a terminal: wrapped lines, styled headings. Its `Renderer` is
not `textshop.render.html.Renderer` (same class name, other module, other block)."""
from textshop.render.theme import default_theme, make_style
from textshop.util.text import truncate


def width_of(text):
    return len(text)


class Renderer:
    def __init__(self, width=72, theme=None):
        self.width = width
        self.theme = theme or default_theme()
        self.Heading = make_style(self.theme, bold=True)

    def render(self, root):
        lines = [self._style(root.title or "untitled"), ""]
        for child in root.children:
            lines.extend(self._node(child))
            lines.append("")
        return "\n".join(lines)

    def _style(self, title):
        return self.Heading("heading").wrap(truncate(title, self.width - 2))

    def _node(self, paragraph):
        words = []
        for sentence in paragraph.children:
            words.extend(self._line(sentence))
        return self._wrap(words)

    def _line(self, sentence):
        return [token.text for token in sentence.children if token.kind != "newline"]

    def _wrap(self, words):
        lines, current = [], ""
        for word in words:
            if current and width_of(current) + 1 + width_of(word) > self.width:
                lines.append(current)
                current = word
            else:
                current = word if not current else current + " " + word
        if current:
            lines.append(current)
        return lines


def render_term(root, width=72):
    return Renderer(width).render(root)
