package app.ui;

import java.util.ArrayList;
import java.util.List;

/** A vertical list of widgets with keyboard focus. */
public final class Menu {
    private final Canvas canvas;
    private final List<Widget> items = new ArrayList<>();
    private int focus;

    Menu(Canvas canvas) {
        this.canvas = canvas;
    }

    static Menu main(Canvas canvas) {
        Menu m = new Menu(canvas);
        m.add(new Button("New game"));
        m.add(new Button("Multiplayer"));
        m.add(new Button("Editor"));
        m.add(new Label("Settings"));
        m.add(new Label(0));
        m.layout(canvas.width(), canvas.height());
        return m;
    }

    void add(Widget w) {
        items.add(w);
    }

    void layout(int width, int height) {
        int rowHeight = height / Math.max(1, items.size());
        for (int i = 0; i < items.size(); i++) {
            items.get(i).layout(2, i * rowHeight, width - 4, rowHeight);
        }
    }

    boolean handle(InputEvent e) {
        if (e.isKey()) {
            focus = (focus + e.code) % items.size();
            return true;
        }
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i).contains(e.x, e.y)) {
                select(i);
                return true;
            }
        }
        return false;
    }

    void select(int index) {
        focus = index;
        Widget w = items.get(index);
        if (w instanceof Button) {
            ((Button) w).click();
        }
    }

    void paint() {
        canvas.clear();
        for (int i = 0; i < items.size(); i++) {
            items.get(i).paint(canvas, i == focus);
        }
    }
}
