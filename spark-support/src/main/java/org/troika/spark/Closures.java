package org.troika.spark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Java serialization of the rank function and the results, used only on channels that already passed the HMAC check,
 * and always read through an {@link ObjectInputFilter} allow-list that ends in {@code !*}.
 */
public final class Closures {
    /** JDK types a function or result commonly holds; everything else must be allowed by package. */
    static final List<String> JDK_ALLOWED = List.of("java.lang.*", "java.lang.invoke.SerializedLambda", "java.util.*",
            "java.math.*", "java.time.*");
    /** Bounds on any stream, whatever the patterns. */
    static final String LIMITS = "maxdepth=64;maxrefs=100000;maxbytes=" + (1 << 20) + ";maxarray=" + (1 << 20);

    private Closures() {}

    /**
     * The filter pattern for a function: limits, the JDK basics, {@code org.troika.**}, the package of the function's
     * class (for a lambda: of the class that wrote it), the caller's extra patterns, then {@code !*}.
     */
    public static String filterFor(Object fn, List<String> extra) {
        List<String> parts = new ArrayList<>();
        parts.add(LIMITS);
        parts.addAll(JDK_ALLOWED);
        parts.add("org.troika.**");
        String pkg = packageOf(definingClassName(fn));
        parts.add(pkg.isEmpty() ? definingClassName(fn) : pkg + ".*");
        parts.addAll(extra);
        parts.add("!*");
        return String.join(";", parts);
    }

    /** The class that wrote {@code fn}: the capturing class of a serializable lambda, else its own class. */
    static String definingClassName(Object fn) {
        Class<?> c = fn.getClass();
        if (c.isSynthetic()) {
            try {
                Method m = c.getDeclaredMethod("writeReplace");
                m.setAccessible(true);
                if (m.invoke(fn) instanceof SerializedLambda l) {
                    return l.getCapturingClass().replace('/', '.');
                }
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not a serializable lambda: fall back to its class
            }
        }
        return c.getName();
    }

    static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    public static byte[] serialize(Serializable o) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        return b.toByteArray();
    }

    /**
     * Reads one object through the filter {@code pattern}; a class outside it fails with {@link InvalidClassException}
     * before any of its code runs.
     */
    public static Object deserialize(byte[] data, String pattern, ClassLoader loader) throws IOException,
            ClassNotFoundException {
        ObjectInputFilter filter = ObjectInputFilter.Config.createFilter(pattern);
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(data)) {
            @Override
            protected Class<?> resolveClass(java.io.ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    return super.resolveClass(desc);
                }
            }
        }) {
            in.setObjectInputFilter(filter);
            return in.readObject();
        }
    }
}
