package org.troika.testkit;

import java.nio.file.Path;
import org.troika.common.PrivateFiles;

/**
 * A test helper run in its own JVM (possibly in another PID namespace): {@code make PARENT} makes a key directory
 * under PARENT, prints its path and holds it until stdin closes; {@code sweep PARENT} runs
 * {@link PrivateFiles#removeAbandoned} once and prints how many it removed.
 */
public final class KeyDirectoryHolder {
    private KeyDirectoryHolder() {}

    public static void main(String[] args) throws Exception {
        Path parent = Path.of(args[1]);
        if (args[0].equals("sweep")) {
            System.out.println(PrivateFiles.removeAbandoned(parent));
            return;
        }
        System.out.println(PrivateFiles.createOwnedTempDirectory(parent));
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold the directory (and its lock) until the test closes stdin or kills us
        }
    }
}
