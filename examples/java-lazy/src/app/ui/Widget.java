package app.ui;

/** Something on the menu with a rectangle. */
public abstract class Widget {
    protected int x;
    protected int y;
    protected int width;
    protected int height;

    protected Widget() {}

    void layout(int x, int y, int width, int height) {
        this.x = x;
        this.y = y;
        this.width = width;
        this.height = height;
    }

    boolean contains(int px, int py) {
        return px >= x && py >= y && px < x + width && py < y + height;
    }

    abstract int measure();

    abstract void paint(Canvas c, boolean focused);
}
