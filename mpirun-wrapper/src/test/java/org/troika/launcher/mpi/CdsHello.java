package org.troika.launcher.mpi;

/** A trivial java rank for {@link RankEnvCdsScriptTest}: prints its arguments, loads a few JDK classes. */
public final class CdsHello {
    private CdsHello() {}

    public static void main(String[] args) {
        java.util.List<String> list = new java.util.ArrayList<>(java.util.List.of(args));
        System.out.println("hello " + String.join(",", list));
        if (list.contains("jna")) {
            System.out.println("jna.platform.library.path=" + System.getProperty("jna.platform.library.path"));
        }
    }
}
