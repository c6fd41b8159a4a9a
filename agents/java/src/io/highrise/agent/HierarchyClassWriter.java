package io.highrise.agent;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * COMPUTE_FRAMES needs common super classes. Loading classes here would be wrong (the wrong
 * loader, or recursion into class loading), so hierarchies are read from class files through
 * the defining loader's resources; anything unknown merges to java/lang/Object.
 */
final class HierarchyClassWriter extends ClassWriter {
    private static final String OBJECT = "java/lang/Object";
    private final ClassLoader loader;
    private final Map<String, String[]> cache = new HashMap<>(); // name -> {super, isInterface}

    HierarchyClassWriter(ClassReader reader, ClassLoader loader) {
        super(reader, ClassWriter.COMPUTE_FRAMES);
        this.loader = loader;
        cache.put(reader.getClassName(), new String[] {reader.getSuperName(),
            (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0 ? "i" : ""});
    }

    @Override
    protected String getCommonSuperClass(String a, String b) {
        try {
            if (a.equals(b)) {
                return a;
            }
            List<String> chainA = chain(a);
            if (chainA == null) {
                return OBJECT;
            }
            List<String> chainB = chain(b);
            if (chainB == null) {
                return OBJECT;
            }
            for (String s : chainB) {
                if (chainA.contains(s)) {
                    return s;
                }
            }
            return OBJECT;
        } catch (Throwable t) {
            return OBJECT;
        }
    }

    /** name, its super, ..., java/lang/Object; null for an interface or an unknown class. */
    private List<String> chain(String name) {
        List<String> out = new ArrayList<>();
        String cur = name;
        while (cur != null) {
            out.add(cur);
            if (cur.equals(OBJECT)) {
                return out;
            }
            String[] info = info(cur);
            if (info == null || !info[1].isEmpty()) {
                return null;
            }
            cur = info[0];
            if (out.size() > 256) {
                return null;
            }
        }
        return out;
    }

    private String[] info(String name) {
        String[] known = cache.get(name);
        if (known != null) {
            return known;
        }
        String resource = name + ".class";
        try (InputStream in = loader != null ? loader.getResourceAsStream(resource)
                : ClassLoader.getSystemResourceAsStream(resource)) {
            InputStream stream = in != null ? in : ClassLoader.getSystemResourceAsStream(resource);
            if (stream == null) {
                return null;
            }
            try (InputStream s = stream) {
                ClassReader r = ClassReading.readerFor(s.readAllBytes());
                String[] info = {r.getSuperName(),
                    (r.getAccess() & Opcodes.ACC_INTERFACE) != 0 ? "i" : ""};
                cache.put(name, info);
                return info;
            }
        } catch (Throwable t) {
            return null;
        }
    }
}
