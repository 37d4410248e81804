package org.troika.launcher.spi;

/**
 * One value of {@link RunSettings} that can be set on its own, such as a row of the option table: chain them with
 * {@link RunSettings#with(Setting, Object)}.
 *
 * @param <T> the value's type
 */
public interface Setting<T> {
    /**
     * A copy of {@code settings} with this value set to {@code value}.
     *
     * @throws org.troika.common.UsageException when the value breaks a rule of its group
     */
    RunSettings set(RunSettings settings, T value);
}
