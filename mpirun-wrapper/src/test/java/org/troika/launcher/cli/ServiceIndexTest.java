package org.troika.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.troika.launcher.spi.Subcommand;

/** The package-time plugin index: what it lists, and that a changed lib/ makes it fall back to ServiceLoader. */
class ServiceIndexTest {
    @TempDir
    Path lib;

    private Path jar(String name, String service, String body) throws IOException {
        Path jar = lib.resolve(name);
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry("META-INF/services/" + service));
            j.write(body.getBytes(StandardCharsets.UTF_8));
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void listsProvidersOfEveryJarInClassPathOrderWithoutComments() throws IOException {
        Path a = jar("a.jar", "x.Service", "# a comment\nx.B  # trailing\n\nx.C\n");
        Path b = jar("b.jar", "x.Service", "x.A\n");
        jar("c.jar", "y.Other", "y.D\n");
        Files.writeString(lib.resolve(ServiceIndex.FILE), ServiceIndex.build(lib, List.of(b, a, lib.resolve("c.jar"))));
        assertEquals(List.of("x.A", "x.B", "x.C"), ServiceIndex.providers("x.Service", lib));
        assertEquals(List.of("y.D"), ServiceIndex.providers("y.Other", lib));
        assertEquals(List.of(), ServiceIndex.providers("z.None", lib), "a current index with no provider");
    }

    @Test
    void aChangedLibFolderOrNoIndexMeansTheClassPathScan() throws IOException {
        Path a = jar("a.jar", "x.Service", "x.A\n");
        assertNull(ServiceIndex.providers("x.Service", lib), "no index yet");
        Files.writeString(lib.resolve(ServiceIndex.FILE), ServiceIndex.build(lib, List.of(a)));
        assertEquals(List.of("x.A"), ServiceIndex.providers("x.Service", lib));

        jar("plugin.jar", "x.Service", "x.P\n");
        assertNull(ServiceIndex.providers("x.Service", lib), "a jar dropped into lib/ is not in the index");
        Files.delete(lib.resolve("plugin.jar"));
        assertEquals(List.of("x.A"), ServiceIndex.providers("x.Service", lib));

        Files.setLastModifiedTime(a, FileTime.fromMillis(Files.getLastModifiedTime(a).toMillis() - 5000));
        assertNull(ServiceIndex.providers("x.Service", lib), "a rebuilt jar");
    }

    @Test
    void loadInstantiatesIndexedProvidersAndFallsBackToServiceLoader() throws IOException {
        // this module's own Subcommand providers (META-INF/services of troika-launcher, found by ServiceLoader)
        List<String> scanned = ServiceIndex.load(Subcommand.class, null).stream().map(Subcommand::name).toList();
        assertTrue(scanned.contains("rsh") && scanned.contains("task-service"), scanned.toString());

        Path a = jar("a.jar", Subcommand.class.getName(), RshSubcommands.AgentCommand.class.getName() + "\n");
        Files.writeString(lib.resolve(ServiceIndex.FILE), ServiceIndex.build(lib, List.of(a)));
        assertEquals(List.of("rsh"), ServiceIndex.load(Subcommand.class, lib).stream().map(Subcommand::name).toList());

        Files.writeString(lib.resolve(ServiceIndex.FILE), ServiceIndex.build(lib, List.of(
                jar("a.jar", Subcommand.class.getName(), "org.troika.NoSuchPlugin\n"))));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ServiceIndex.load(Subcommand.class, lib));
        assertTrue(e.getMessage().contains("org.troika.NoSuchPlugin"), e.getMessage());
    }
}
