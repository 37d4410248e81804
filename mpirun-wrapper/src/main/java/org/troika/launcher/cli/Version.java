package org.troika.launcher.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * troika's build: the version and the git commit it was built from, written into {@code build.properties} at build
 * time (see troika-launcher's pom). {@code troika --version} prints {@link #describe()}.
 */
final class Version {
    private Version() {}

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
    static String get() {
        return build().getProperty("version", "unknown");
    }

    /** {@code troika 0.1.0 (git 1ad4b9d2c3f4)}; {@code -dirty} marks a build with uncommitted changes. */
    static String describe() {
        return "troika " + get() + " (git " + build().getProperty("commit", "unknown") + ")";
    }

    private static Properties build() {
        Properties p = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // an unreadable resource leaves the version unknown
        }
        return p;
    }
}
