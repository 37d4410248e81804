package org.troika.spark;

import java.io.File;
import java.io.IOException;
import java.io.Serializable;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.troika.wire.Endpoint;
import org.troika.wire.Protocol;
import org.troika.wire.SparkMessage;
import org.troika.wire.Secret;
import org.troika.wire.WireChannel;
import org.troika.worker.RankEnv;

/**
 * One rank of a {@link TroikaSpark#run} job (started by orted inside an executor): fetches the function from the
 * driver's job service over the authenticated channel, deserializes it through the job's class filter, runs it with
 * this rank's {@link RankEnv}, and reports the serialized result (or the error) back. Exit code 0 on success, 1 when
 * the function failed, 2 when the job service could not be reached.
 *
 * <p>Reads {@value #SERVICE_ENV} (exported by mpirun) and the rank key ({@link JobService#rankKey}, never the job
 * secret) from the file named by {@value #KEY_FILE_ENV}: written by the driver when mpirun starts the ranks on its own
 * machine, else by each host's task service (sent by the driver over the relay) and named to orted, whose ranks
 * inherit it.
 */
public final class RankMain {
    /** The job service's endpoint, {@code ADDRESS:PORT}. */
    public static final String SERVICE_ENV = "TROIKA_SPARK_SERVICE";
    /**
     * The application's class path (the driver's, or {@link RunOptions#rankClasspath}), for the function's classes.
     * The rank JVM itself starts on troika's few jars only ({@code -cp}): a JDK service lookup that the first
     * deserialization makes ({@code System.LoggerFinder}) opens every jar of the system class path, and Spark's
     * hundreds of jars made that cost ~0.5 s per rank on a loaded machine (measured, bench/spark-latency.sh).
     */
    public static final String CLASSPATH_ENV = "TROIKA_SPARK_CLASSPATH";
    /** The file (0600) holding the rank key. */
    public static final String KEY_FILE_ENV = "TROIKA_SPARK_KEY_FILE";
    static final int TIMEOUT_MS = 60_000;

    private RankMain() {}

    public static void main(String[] args) {
        System.exit(run(System.getenv()));
    }

    static int run(Map<String, String> env) {
        RankEnv rank = RankEnv.current();
        Secret secret;
        try {
            secret = Secret.readFile(java.nio.file.Path.of(env.getOrDefault(KEY_FILE_ENV, "")));
        } catch (IOException | RuntimeException e) {
            System.err.println("troika-spark rank " + rank.rank() + ": cannot read the rank key from " + KEY_FILE_ENV
                    + "=" + env.getOrDefault(KEY_FILE_ENV, "(unset)") + ": " + e.getMessage()
                    + "; ranks are started by TroikaSpark.run, which sets it");
            return 2;
        }
        List<Endpoint> service = Endpoint.parseList(env.getOrDefault(SERVICE_ENV, ""), SERVICE_ENV);
        SparkMessage.FunctionBytes fn;
        try (WireChannel<SparkMessage> c = WireChannel.connectAny(service, Protocol.SPARK, secret, TIMEOUT_MS)) {
            c.send(new SparkMessage.FetchFunction(rank.rank()));
            SparkMessage m = c.receive();
            if (!(m instanceof SparkMessage.FunctionBytes f)) {
                System.err.println("troika-spark rank " + rank.rank() + ": the driver refused the function: " + m);
                return 2;
            }
            fn = f;
        } catch (IOException e) {
            System.err.println("troika-spark rank " + rank.rank() + ": cannot fetch the function from " + service + ": "
                    + e.getMessage());
            return 2;
        }
        ClassLoader app = applicationLoader(env.get(CLASSPATH_ENV), RankMain.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(app);
        SparkMessage.RankResult result = execute(rank, fn);
        try (WireChannel<SparkMessage> c = WireChannel.connectAny(service, Protocol.SPARK, secret, TIMEOUT_MS)) {
            c.send(result);
            SparkMessage ack = c.receive();
            if (ack instanceof SparkMessage.Failure f) {
                System.err.println("troika-spark rank " + rank.rank() + ": result refused: " + f.message());
                return 2;
            }
        } catch (IOException e) {
            System.err.println("troika-spark rank " + rank.rank() + ": cannot report the result: " + e.getMessage());
            return 2;
        }
        if (!result.ok()) {
            System.err.println("troika-spark rank " + rank.rank() + ": " + new String(result.data(), StandardCharsets.UTF_8));
        }
        return result.ok() ? 0 : 1;
    }

    /**
     * The loader of the function's classes: {@code classpath} (entries separated by {@code :}, {@code dir/*} for the
     * jars of a folder) in a child of {@code parent}, which it asks first, so troika's classes stay the parent's.
     * {@code parent} itself when there is no class path. The entries become URLs only as lookups reach them
     * ({@link ClassPathLoader}): a driver's class path holds hundreds of Spark jars, and making a URL of each cost a
     * rank ~10 ms of CPU before the first lookup (measured), while the function's classes are usually in the first.
     */
    static ClassLoader applicationLoader(String classpath, ClassLoader parent) {
        if (classpath == null || classpath.isEmpty()) {
            return parent;
        }
        return new ClassPathLoader(List.of(classpath.split(File.pathSeparator)), parent);
    }

    /**
     * A {@link URLClassLoader} whose class-path entries are added in order, in growing batches, each time a lookup
     * fails over those added so far; resource enumerations and {@link #getURLs} add them all first. It finds what a
     * loader given all URLs at once finds, in the same order.
     */
    static final class ClassPathLoader extends URLClassLoader {
        static {
            ClassLoader.registerAsParallelCapable();
        }

        private final List<String> entries;
        private int next;
        private int batch = 1;

        ClassPathLoader(List<String> entries, ClassLoader parent) {
            super("troika-spark-application", new URL[0], parent);
            this.entries = List.copyOf(entries);
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            while (true) {
                try {
                    return super.findClass(name);
                } catch (ClassNotFoundException e) {
                    if (!addMore(false)) {
                        throw e;
                    }
                }
            }
        }

        @Override
        public URL findResource(String name) {
            while (true) {
                URL u = super.findResource(name);
                if (u != null || !addMore(false)) {
                    return u;
                }
            }
        }

        @Override
        public java.util.Enumeration<URL> findResources(String name) throws IOException {
            addMore(true);
            return super.findResources(name);
        }

        @Override
        public URL[] getURLs() {
            addMore(true);
            return super.getURLs();
        }

        /** How many class-path entries have been added so far. */
        synchronized int entriesAdded() {
            return next;
        }

        /** Adds the next batch (or every entry left); whether any entry was left. */
        private synchronized boolean addMore(boolean all) {
            if (next >= entries.size()) {
                return false;
            }
            int end = all ? entries.size() : Math.min(entries.size(), next + batch);
            batch *= 2;
            for (; next < end; next++) {
                for (URL u : urls(entries.get(next))) {
                    addURL(u);
                }
            }
            return true;
        }

        /** The URLs of one entry: a jar or folder, or {@code dir/*}'s jars in name order; none for an empty entry. */
        private static List<URL> urls(String entry) {
            List<URL> urls = new ArrayList<>();
            try {
                if (entry.equals("*") || entry.endsWith(File.separator + "*")) {
                    File[] jars = new File(entry.substring(0, entry.length() - 1).isEmpty() ? "."
                            : entry.substring(0, entry.length() - 1)).listFiles();
                    if (jars != null) {
                        Arrays.sort(jars);
                        for (File j : jars) {
                            if (j.getName().endsWith(".jar") || j.getName().endsWith(".JAR")) {
                                urls.add(j.toURI().toURL());
                            }
                        }
                    }
                } else if (!entry.isEmpty()) {
                    urls.add(new File(entry).toURI().toURL());
                }
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException(CLASSPATH_ENV + " entry " + entry + " is not a path", e);
            }
            return urls;
        }
    }

    /** Deserializes and runs the function; any failure becomes a one-line error result. */
    static SparkMessage.RankResult execute(RankEnv rank, SparkMessage.FunctionBytes fn) {
        try {
            Object f = Closures.deserialize(fn.data(), fn.classFilter(), Thread.currentThread().getContextClassLoader());
            if (!(f instanceof RankFunction<?> function)) {
                return error(rank, "the driver sent a " + f.getClass().getName() + ", not a RankFunction");
            }
            byte[] out = Closures.serialize((Serializable) function.apply(rank));
            if (out.length > WireChannel.DEFAULT_MAX_BODY - 64) {
                return error(rank, "the result is " + out.length + " bytes serialized, more than the "
                        + (WireChannel.DEFAULT_MAX_BODY - 64) + " a rank can return; return less (e.g. a checksum)");
            }
            return new SparkMessage.RankResult(rank.rank(), true, out);
        } catch (Exception | Error e) {
            return error(rank, e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private static SparkMessage.RankResult error(RankEnv rank, String line) {
        String one = line.replace('\n', ' ');
        return new SparkMessage.RankResult(rank.rank(), false, one.getBytes(StandardCharsets.UTF_8));
    }
}
