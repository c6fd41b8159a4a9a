package app.ui;

/** A character-cell canvas (the menu is drawn as text; nothing needs a display). */
final class Canvas {
    private final char[][] cells;

    Canvas(int width, int height) {
        cells = new char[height][width];
    }

    int width() {
        return cells[0].length;
    }

    int height() {
        return cells.length;
    }

    void clear() {
        for (char[] row : cells) {
            java.util.Arrays.fill(row, ' ');
        }
    }

    void drawText(String s, int x, int y) {
        if (y < 0 || y >= cells.length) {
            return;
        }
        for (int i = 0; i < s.length() && x + i < cells[y].length; i++) {
            if (x + i >= 0) {
                cells[y][x + i] = s.charAt(i);
            }
        }
    }

    void drawText(int n, int x, int y) {
        drawText(Integer.toString(n), x, y);
    }

    void drawRect(int x, int y, int w, int h) {
        for (int i = 0; i < w; i++) {
            drawText("-", x + i, y);
            drawText("-", x + i, y + h - 1);
        }
    }
}
