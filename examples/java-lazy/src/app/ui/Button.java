package app.ui;

/** A clickable text button. */
final class Button extends Widget {
    private final String text;
    private int clicks;

    Button(String text) {
        this.text = text;
    }

    void click() {
        clicks++;
    }

    @Override
    int measure() {
        return text.length() + 4;
    }

    @Override
    void paint(Canvas c, boolean focused) {
        c.drawRect(x, y, measure(), height);
        c.drawText(focused ? "> " + text : text, x + 2, y + 1);
        if (clicks > 0) {
            c.drawText(clicks, x + width - 6, y + 1);
        }
    }
}
