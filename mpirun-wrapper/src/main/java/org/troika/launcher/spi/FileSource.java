package org.troika.launcher.spi;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import org.troika.common.UsageException;

/**
 * Reads the text files hosts come from (a {@code --hostfile}, {@code LSB_DJOB_HOSTFILE}, {@code PBS_NODEFILE}), so
 * tests can hand in recorded files. {@link #system()} is the one real reader: regular files only, at most
 * {@value #MAX_BYTES} bytes, within {@link #TIMEOUT}.
 */
@FunctionalInterface
public interface FileSource {
    /** Largest host file the real reader accepts (a 1,000,000-slot nodefile of 30-character names is ~31 MB). */
    long MAX_BYTES = 64L << 20;
    /** How long the real reader waits for a file (a hung network file system must not hang troika). */
    Duration TIMEOUT = Duration.ofSeconds(10);

    /**
     * The file's lines.
     *
     * @throws Unusable when the file is of the wrong type, too large, not UTF-8 or too slow
     * @throws NoSuchFileException when it does not exist
     */
    List<String> readLines(Path path) throws IOException;

    /**
     * The file's text, refused before it is read in full when it has more than {@code maxBytes} bytes (the real
     * reader also caps it at {@link #MAX_BYTES}). This default, for recorded files in tests, joins the lines.
     *
     * @param what the kind of file, for the message ("config files")
     * @throws Unusable as {@link #readLines}, or when the file is larger than {@code maxBytes}
     */
    default String readText(Path path, long maxBytes, String what) throws IOException {
        String text = String.join("\n", readLines(path));
        if (text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > maxBytes) {
            throw new Unusable("has more than the " + maxBytes + "-byte limit for " + what);
        }
        return text;
    }

    /** The real file system: regular files only, size-capped, with a timeout (see {@link BoundedFileSource}). */
    static FileSource system() {
        return new BoundedFileSource(MAX_BYTES, TIMEOUT, true);
    }

    /**
     * Reads a host file and turns every failure into one usage error: {@code "<what> <problem>; <fix>"}.
     *
     * @param what names the file for the message, e.g. {@code "hostfile /x"} or {@code "PBS_NODEFILE=/x"}
     * @param fix what the user can do, e.g. {@code "pass -H/--hostfile instead"}
     */
    default List<String> readHostLines(String what, Path path, String fix) {
        return explained(what, fix, () -> readLines(path));
    }

    /**
     * Reads a text file of at most {@code maxBytes} (e.g. a config file) and turns every failure into one usage error,
     * as {@link #readHostLines}.
     *
     * @param kind the kind of file for the size message, e.g. {@code "config files"}
     */
    default String readText(String what, Path path, long maxBytes, String kind, String fix) {
        return explained(what, fix, () -> readText(path, maxBytes, kind));
    }

    /** A read that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface Read<T> {
        T read() throws IOException;
    }

    private static <T> T explained(String what, String fix, Read<T> read) {
        String problem;
        try {
            return read.read();
        } catch (NoSuchFileException e) {
            problem = "does not exist";
        } catch (AccessDeniedException e) {
            problem = "is not readable (permission denied)";
        } catch (Unusable e) {
            problem = e.getMessage();
        } catch (IOException e) {
            problem = "cannot be read (" + UserText.escape(String.valueOf(e.getMessage())) + ")";
        }
        throw new UsageException(what + " " + problem + "; " + fix);
    }

    /** A file that exists but cannot serve as a host file; the message is a phrase ("is a FIFO, not a regular file"). */
    final class Unusable extends IOException {
        private static final long serialVersionUID = 1L;

        public Unusable(String phrase) {
            super(phrase);
        }
    }

    /**
     * What kind of file {@code path} is when it is not a regular one, for messages: "a directory", "a FIFO", "a
     * character device", "a symbolic link" (with {@code NOFOLLOW_LINKS}), ... The one spelling for host files,
     * timelines and output files.
     */
    static String kindOf(Path path, LinkOption... options) {
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class, options);
            if (a.isDirectory()) {
                return "a directory";
            }
            if (a.isSymbolicLink()) {
                return "a symbolic link";
            }
            switch ((Integer) Files.getAttribute(path, "unix:mode", options) & 0170000) {
                case 0010000:
                    return "a FIFO";
                case 0020000:
                    return "a character device";
                case 0060000:
                    return "a block device";
                case 0140000:
                    return "a socket";
                default:
                    break;
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            // no unix view: fall back to the generic word
        }
        return "a special file";
    }
}
