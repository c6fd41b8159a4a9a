package shapes;

class Circle extends Shape {
    double r;
}
