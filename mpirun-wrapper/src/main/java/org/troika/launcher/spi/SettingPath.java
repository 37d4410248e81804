package org.troika.launcher.spi;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A component of {@link RunSettings} named by its path, such as {@code elastic.minNp}: where an option lands. It reads
 * the value, or copies the settings with a new one: every record on the way is rebuilt through its canonical
 * constructor, so its checks run and no other component is lost (a new component needs no change here).
 */
public final class SettingPath {
    private static final ClassValue<Constructor<?>> CANONICAL = new ClassValue<>() {
        @Override
        protected Constructor<?> computeValue(Class<?> type) {
            Class<?>[] types = Arrays.stream(type.getRecordComponents()).map(RecordComponent::getType)
                    .toArray(Class<?>[]::new);
            try {
                return type.getDeclaredConstructor(types);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("a record without its canonical constructor: " + type, e);
            }
        }
    };

    private final String path;
    /** The components from {@link RunSettings} down; each but the last is a record. */
    private final List<RecordComponent> steps;

    private SettingPath(String path, List<RecordComponent> steps) {
        this.path = path;
        this.steps = List.copyOf(steps);
    }

    /**
     * The component at {@code path}: names of record components separated by dots.
     *
     * @throws IllegalArgumentException when a name is not a component there
     */
    public static SettingPath of(String path) {
        List<RecordComponent> steps = new ArrayList<>();
        Class<?> type = RunSettings.class;
        for (String name : path.split("\\.", -1)) {
            if (!type.isRecord()) {
                throw new IllegalArgumentException(path + ": " + type.getSimpleName() + " is not a record");
            }
            Class<?> in = type;
            RecordComponent c = Arrays.stream(in.getRecordComponents()).filter(rc -> rc.getName().equals(name))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException(path + ": " + name
                            + " is not a component of " + in.getSimpleName()));
            steps.add(c);
            type = c.getType();
        }
        return new SettingPath(path, steps);
    }

    /** The top-level component that holds groups of {@code type}. */
    static SettingPath of(Class<? extends RunSettings.Group> type) {
        for (RecordComponent c : RunSettings.class.getRecordComponents()) {
            if (c.getType() == type) {
                return new SettingPath(c.getName(), List.of(c));
            }
        }
        throw new IllegalArgumentException(type + " is not a group of RunSettings");
    }

    /** The type of the value (primitive types as they are: {@code boolean}). */
    public Class<?> type() {
        return steps.get(steps.size() - 1).getType();
    }

    /** The value in {@code settings}. */
    public Object get(RunSettings settings) {
        Object v = settings;
        for (RecordComponent c : steps) {
            v = read(v, c);
        }
        return v;
    }

    /**
     * A copy of {@code settings} with {@code value} here.
     *
     * @throws org.troika.common.UsageException when a record's checks refuse the value
     */
    public RunSettings set(RunSettings settings, Object value) {
        return (RunSettings) copy(settings, 0, value);
    }

    private Object copy(Object record, int step, Object value) {
        RecordComponent target = steps.get(step);
        RecordComponent[] all = record.getClass().getRecordComponents();
        Object[] args = new Object[all.length];
        for (int i = 0; i < all.length; i++) {
            args[i] = read(record, all[i]);
        }
        int at = 0;
        while (!all[at].getName().equals(target.getName())) {
            at++;
        }
        args[at] = step == steps.size() - 1 ? value : copy(args[at], step + 1, value);
        try {
            return CANONICAL.get(record.getClass()).newInstance(args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild " + record.getClass().getSimpleName() + " for " + path, e);
        }
    }

    private static Object read(Object record, RecordComponent c) {
        try {
            return c.getAccessor().invoke(Objects.requireNonNull(record));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + c.getName(), e);
        }
    }

    @Override
    public String toString() {
        return path;
    }
}
