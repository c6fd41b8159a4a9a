package io.highrise.testapp;

import java.lang.instrument.Instrumentation;

/**
 * The tests' independent size oracle: a JVM started with a manifest-only agent jar naming this
 * class ({@code Premain-Class}) prints {@link Instrumentation#getObjectSize} of real instances:
 * {@code CLASS} (made with its no-argument constructor) or {@code TYPE[]:LENGTH} (an array of
 * that element type, {@code int}, {@code java.lang.String}, {@code long[]}, ...), one
 * {@code SIZE spec bytes} line each. No highrise agent involved.
 * Usage: java -javaagent:sizeof.jar -cp CLASSES io.highrise.testapp.SizeOf SPEC...
 */
public class SizeOf {
    static Instrumentation inst;

    public static void premain(String args, Instrumentation i) {
        inst = i;
    }

    public static void main(String[] args) throws Exception {
        for (String spec : args) {
            Object o;
            int colon = spec.lastIndexOf(':');
            if (colon > 0 && spec.substring(0, colon).endsWith("[]")) {
                String element = spec.substring(0, colon - 2);
                o = java.lang.reflect.Array.newInstance(type(element), Integer.parseInt(spec.substring(colon + 1)));
            } else {
                java.lang.reflect.Constructor<?> c = Class.forName(spec).getDeclaredConstructor();
                c.setAccessible(true);
                o = c.newInstance();
            }
            System.out.println("SIZE " + spec + " " + inst.getObjectSize(o));
        }
    }

    static Class<?> type(String name) throws ClassNotFoundException {
        switch (name) {
            case "boolean": return boolean.class;
            case "byte": return byte.class;
            case "char": return char.class;
            case "short": return short.class;
            case "int": return int.class;
            case "long": return long.class;
            case "float": return float.class;
            case "double": return double.class;
            default:
                if (name.endsWith("[]")) {
                    return java.lang.reflect.Array.newInstance(type(name.substring(0, name.length() - 2)), 0).getClass();
                }
                return Class.forName(name);
        }
    }
}
