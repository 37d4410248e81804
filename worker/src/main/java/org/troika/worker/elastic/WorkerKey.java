package org.troika.worker.elastic;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.troika.common.TroikaEnv;
import org.troika.wire.Secret;

/**
 * The rank's worker key, from where its launch put it: the file {@link TroikaEnv#WORKER_SECRET_FILE} names (written
 * on the rank's host by its task service when the daemons came through troika's relay), else the key itself in
 * {@link TroikaEnv#WORKER_KEY} (ranks that {@code srun} started with the launcher's environment).
 */
final class WorkerKey {
    private WorkerKey() {}

    /**
     * The key, or {@code null} when the environment names neither.
     *
     * @throws IOException when the file cannot be read or the key is malformed (the message names the variable)
     */
    static Secret fromEnvironment(Map<String, String> env) throws IOException {
        String file = env.get(TroikaEnv.WORKER_SECRET_FILE);
        if (file != null && !file.isBlank()) {
            try {
                return Secret.readFile(Path.of(file));
            } catch (IOException | RuntimeException e) {
                throw new IOException("cannot read the worker key " + TroikaEnv.WORKER_SECRET_FILE + "=" + file + " ("
                        + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
            }
        }
        String inline = env.get(TroikaEnv.WORKER_KEY);
        if (inline != null && !inline.isBlank()) {
            try {
                return Secret.decode(inline.strip());
            } catch (RuntimeException e) {
                // never the value itself, nor decode's advice, which is about the job secret
                throw new IOException("the worker key in " + TroikaEnv.WORKER_KEY + " is malformed (not base64 of at"
                        + " least " + Secret.MIN_BYTES + " bytes)", e);
            }
        }
        return null;
    }
}
