package org.troika.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;

/** A rank function of its own small class (it is put into a jar for the rank JVM): what the rank JVM mapped and ran on. */
final class CdsProbe {
    private CdsProbe() {}

    /** The class-data-sharing archives mapped into the rank's JVM (comma-separated), a newline, its class path. */
    static RankFunction<String> archivesAndClassPath() {
        return env -> Files.readString(Path.of("/proc/self/maps")).lines().filter(l -> l.endsWith(".jsa"))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct().sorted().collect(Collectors.joining(","))
                + "\n" + System.getProperty("java.class.path");
    }
}
