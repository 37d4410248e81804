package org.troika.common;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.troika.common.exec.NativeText;

/**
 * The form of {@link TroikaEnv#ELASTIC_SPAWN_COMMAND}: the rank command's words, each followed by a NUL byte, base64
 * encoded. The launcher writes it from the planned command ({@link NativeText}'s lossless strings), ranks read the
 * exact bytes back to spawn the same command onto new hosts.
 */
public final class SpawnCommand {
    private SpawnCommand() {}

    /** The variable's value for {@code words}. */
    public static String encode(List<String> words) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String w : words) {
            byte[] b = NativeText.encode(w);
            for (byte x : b) {
                if (x == 0) {
                    throw new IllegalArgumentException("a command word cannot hold a NUL byte");
                }
            }
            out.writeBytes(b);
            out.write(0);
        }
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    /**
     * The words' bytes.
     *
     * @throws IllegalArgumentException when {@code value} is not such an encoding (not base64, empty, a word not ended)
     */
    public static List<byte[]> decode(String value) {
        byte[] all = Base64.getDecoder().decode(value.strip());
        if (all.length == 0 || all[all.length - 1] != 0) {
            throw new IllegalArgumentException(TroikaEnv.ELASTIC_SPAWN_COMMAND + " holds no NUL-ended words");
        }
        return words(all);
    }

    /** The NUL-ended words of {@code all} (as in {@code /proc/PID/cmdline}); bytes after the last NUL are dropped. */
    public static List<byte[]> words(byte[] all) {
        List<byte[]> words = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == 0) {
                words.add(java.util.Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        return words;
    }
}
