package app.ui;

/** Static text. */
final class Label extends Widget {
    private String text;

    Label(String text) {
        this.text = text;
    }

    Label(int number) {
        this(Integer.toString(number));
    }

    void setText(String t) {
        text = t;
    }

    void setText(int n) {
        setText(Integer.toString(n));
    }

    @Override
    int measure() {
        return text.length();
    }

    @Override
    void paint(Canvas c, boolean focused) {
        c.drawText(text, x, y);
    }
}
