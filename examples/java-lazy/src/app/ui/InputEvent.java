package app.ui;

/** A key press or a click. */
final class InputEvent {
    final boolean key;
    final int code;
    final int x;
    final int y;

    private InputEvent(boolean key, int code, int x, int y) {
        this.key = key;
        this.code = code;
        this.x = x;
        this.y = y;
    }

    static InputEvent key(int code) {
        return new InputEvent(true, code, 0, 0);
    }

    static InputEvent click(int x, int y) {
        return new InputEvent(false, 0, x, y);
    }

    boolean isKey() {
        return key;
    }
}
