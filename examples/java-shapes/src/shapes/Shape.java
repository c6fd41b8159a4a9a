package shapes;

/** Something drawn on the canvas. */
class Shape {
    int x;
    int y;
}
