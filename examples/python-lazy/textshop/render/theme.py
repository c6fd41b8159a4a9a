"""Colours and styles for the renderers. `make_style` defines a class inside a function: the
viewer shows it as the block `make_style.Style`, apart from any module-level `Style`."""


class Theme:
    class Palette:
        def __init__(self, colors):
            self.colors = list(colors)

        def pick(self, index):
            return self.colors[index % len(self.colors)]

        def shade(self, color, amount):
            return "%s/%d" % (color, amount)

    def __init__(self, name, colors):
        self.name = name
        self.palette = Theme.Palette(colors)

    def color_for(self, kind):
        return self.palette.pick(sum(map(ord, kind)))

    def heading_color(self):
        return self.palette.shade(self.palette.pick(0), 80)


def default_theme():
    return Theme("paper", ["ink", "teal", "rust", "moss", "slate"])


def make_style(theme, bold=False):
    class Style:
        def __init__(self, kind):
            self.color = theme.color_for(kind)
            self.bold = bold

        def wrap(self, text):
            mark = "*" if self.bold else ""
            return "%s%s%s" % (mark, text, mark)

    return Style
