package org.troika.launcher.cli;

/** troika's version, from the jar manifest when packaged. */
final class Version {
    private Version() {}

    static String get() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
