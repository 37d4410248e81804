package org.troika.launcher.doctor;

import java.util.Objects;

/**
 * One finding of {@code troika doctor}.
 *
 * @param name what was checked ({@code mpi}, {@code mpirun}, {@code remote-shell}, ...)
 * @param host the host it concerns, or {@code null} for this machine / the job as a whole
 * @param verdict how it went
 * @param detail what was found (one line)
 * @param fix what to do about it, or {@code null} when nothing needs doing
 */
public record Check(String name, String host, Verdict verdict, String detail, String fix) {
    /** How a check went. Only {@link #FAIL} means a run would not work. */
    public enum Verdict {
        OK, WARN, FAIL, SKIP
    }

    public Check {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(detail, "detail");
    }

    static Check ok(String name, String host, String detail) {
        return new Check(name, host, Verdict.OK, detail, null);
    }

    static Check warn(String name, String host, String detail, String fix) {
        return new Check(name, host, Verdict.WARN, detail, fix);
    }

    static Check fail(String name, String host, String detail, String fix) {
        return new Check(name, host, Verdict.FAIL, detail, fix);
    }

    static Check skip(String name, String host, String detail) {
        return new Check(name, host, Verdict.SKIP, detail, null);
    }
}
