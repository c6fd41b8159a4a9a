"""Turns text into tokens. Its `Token` is not `textshop.parse.tree.Token`: same name, another
module of the same package, so the viewer shows two `Token` blocks in two districts."""

WORD, NUMBER, PUNCT, SPACE, NEWLINE = "word", "number", "punct", "space", "newline"


def classify_char(char):
    if char == "\n":
        return NEWLINE
    if char.isspace():
        return SPACE
    if char.isdigit():
        return NUMBER
    if char.isalpha():
        return WORD
    return PUNCT


class Token:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind, text, pos):
        self.kind = kind
        self.text = text
        self.pos = pos

    def is_word(self):
        return self.kind == WORD

    def __repr__(self):
        return "Token(%s, %r)" % (self.kind, self.text)


class Lexer:
    class State:
        """The cursor over the text being lexed."""

        def __init__(self, text):
            self.text = text
            self.pos = 0

        def at_end(self):
            return self.pos >= len(self.text)

        def peek(self):
            return self.text[self.pos]

        def advance_while(self, kind):
            start = self.pos
            text = self.text
            while self.pos < len(text) and classify_char(text[self.pos]) == kind:
                self.pos += 1
            return text[start : self.pos]

    def __init__(self, keep_space=False):
        self.keep_space = keep_space
        self.tokens_made = 0

    def tokens(self, text):
        state = Lexer.State(text)
        out = []
        while not state.at_end():
            kind = classify_char(state.peek())
            token = self._scan(state, kind)
            if token.kind != SPACE or self.keep_space:
                out.append(token)
        self.tokens_made += len(out)
        return out

    def _scan(self, state, kind):
        if kind == WORD:
            return self._scan_word(state)
        if kind == NUMBER:
            return self._scan_number(state)
        if kind == PUNCT or kind == NEWLINE:
            return self._scan_single(state, kind)
        return self._scan_space(state)

    def _scan_word(self, state):
        pos = state.pos
        return Token(WORD, state.advance_while(WORD), pos)

    def _scan_number(self, state):
        pos = state.pos
        return Token(NUMBER, state.advance_while(NUMBER), pos)

    def _scan_single(self, state, kind):
        pos = state.pos
        state.pos += 1
        return Token(kind, state.text[pos], pos)

    def _scan_space(self, state):
        pos = state.pos
        return Token(SPACE, state.advance_while(SPACE), pos)


def tokenize(text):
    return Lexer().tokens(text)
