package shapes;

import java.util.ArrayList;
import java.util.List;

/**
 * The running example of Fernandez Blanco et al. (2018), "object allocation sites" (their
 * Figure 1), in Java: a canvas filled with 30 circles and 16 boxes by a shape factory, through
 * three calling contexts of {@link ShapeFactory#create} ({@code createCircles}, {@code createBoxes},
 * and {@code createShape} called from {@code main} directly, twice). With the highrise agent
 * ({@code alloc=on}, the default) the viewer and {@code highrise report} show which method made
 * how many objects of which class. Per run: {@code main} makes the Canvas, the Canvas's field
 * initialisers make an ArrayList and the ShapeFactory, and {@code create} makes every shape.
 * Usage: Canvas [--repeat N] [--pause-ms MS] (N runs, MS between them so a viewer can watch).
 */
public class Canvas {
    List<Shape> shapes = new ArrayList<>();
    ShapeFactory factory = new ShapeFactory(); // B

    void add(Shape s) {
        shapes.add(s);
    }

    void createCircles(int number) { // C
        createShape(number, "Circle");
    }

    void createBoxes(int number) { // E
        createShape(number, "Box");
    }

    void createShape(int number, String form) { // F
        for (int i = 0; i < number; i++) {
            add(factory.create(form));
        }
    }

    public static void main(String[] argv) throws InterruptedException { // A
        int repeat = 1;
        long pauseMs = 0;
        for (int i = 0; i < argv.length; i += 2) {
            String value = i + 1 < argv.length ? argv[i + 1] : "";
            switch (argv[i]) {
                case "--repeat":
                    repeat = Integer.parseInt(value);
                    break;
                case "--pause-ms":
                    pauseMs = Long.parseLong(value);
                    break;
                default:
                    System.err.println("usage: Canvas [--repeat N] [--pause-ms MS]");
                    System.exit(2);
            }
        }
        int made = 0;
        for (int run = 0; run < repeat; run++) {
            Canvas canvas = new Canvas();
            canvas.createCircles(15);
            canvas.createBoxes(8);
            canvas.createShape(15, "Circle");
            canvas.createShape(8, "Box");
            made += canvas.shapes.size();
            if (pauseMs > 0) {
                Thread.sleep(pauseMs);
            }
        }
        System.out.println("shapes: " + made + " shapes made in " + repeat + " run(s)");
    }
}
