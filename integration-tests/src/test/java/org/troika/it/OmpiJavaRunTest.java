package org.troika.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.troika.testkit.Dist;
import org.troika.testkit.MpiJob.Launcher;

/**
 * A program written for Open MPI's Java binding runs under {@code troika run} with the distribution's drop-in jar as
 * the only addition to its class path: {@code java -cp app.jar:$TROIKA_HOME/lib/troika-ompi-java.jar Hello} (the
 * jar's manifest brings troika-mpi, troika-common and JNA along from lib/).
 */
@Tag("integration")
class OmpiJavaRunTest {
    private static final String HELLO = """
            import mpi.MPI;

            public class Hello {
                public static void main(String[] args) throws Exception {
                    MPI.Init(args);
                    int rank = MPI.COMM_WORLD.getRank();
                    int[] sum = new int[1];
                    MPI.COMM_WORLD.allReduce(new int[] {rank + 1}, sum, 1, MPI.INT, MPI.SUM);
                    System.out.println("hello from " + rank + " of " + MPI.COMM_WORLD.getSize() + " sum " + sum[0]);
                    MPI.Finalize();
                }
            }
            """;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(Launcher.class)
    void openMpiJavaProgramRunsWithTheDropInJar(Launcher mpi) throws Exception {
        Path dropIn = Dist.home().resolve("lib/troika-ompi-java.jar");
        assertTrue(Files.isRegularFile(dropIn), dropIn + " is not in the distribution");
        Path app = appJar(dropIn);
        RunSupport.Result r = RunSupport.run(mpi, tmp, "-np", "4", "java", "-cp", app + ":" + dropIn, "Hello");
        assertEquals(0, r.exitCode(), r.toString());
        for (int rank = 0; rank < 4; rank++) {
            String line = RunSupport.tag(mpi, rank, "stdout") + "hello from " + rank + " of 4 sum 10";
            assertTrue(r.outLines().contains(line), "missing '" + line + "':\n" + r);
        }
    }

    /** Hello compiled against the drop-in and packed as {@code app.jar}. */
    private Path appJar(Path dropIn) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        Files.writeString(src.resolve("Hello.java"), HELLO);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, err, err, "-cp", dropIn.toString(), "-d",
                classes.toString(), src.resolve("Hello.java").toString());
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        Path jar = tmp.resolve("app.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
                Stream<Path> files = Files.list(classes)) {
            for (Path f : files.toList()) {
                j.putNextEntry(new JarEntry(f.getFileName().toString()));
                j.write(Files.readAllBytes(f));
                j.closeEntry();
            }
        }
        return jar;
    }
}
