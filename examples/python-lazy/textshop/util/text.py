"""Plain text helpers (module-level functions: the `<module>` block of textshop.util.text)."""
import re

_NON_WORD = re.compile(r"[^a-z0-9]+")


def normalize(text):
    return " ".join(text.lower().split())


def words(text):
    return [word for word in _NON_WORD.split(text.lower()) if word]


def shingles(tokens, size=3):
    return [tuple(tokens[i : i + size]) for i in range(max(0, len(tokens) - size + 1))]


def truncate(text, width):
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def is_title(line):
    return bool(line) and line[0].isupper() and not line.endswith(".")


def slugify(text):
    return _NON_WORD.sub("-", text.lower()).strip("-")


def ratio_bar(fraction, width=20):
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return "#" * filled + "." * (width - filled)
