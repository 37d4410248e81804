package org.troika.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rank's application loader: the driver's class path in a child of the rank JVM's (troika-only) loader. */
class RankMainTest {
    @TempDir
    Path tmp;

    /** A loader that sees nothing but the JDK, standing in for a rank JVM started on other jars. */
    private static final ClassLoader JDK_ONLY = ClassLoader.getPlatformClassLoader();

    private Path jarWith(Path jar, Class<?> c) throws IOException {
        String name = c.getName().replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
            j.putNextEntry(new JarEntry(name));
            try (var in = c.getClassLoader().getResourceAsStream(name)) {
                in.transferTo(j);
            }
            j.closeEntry();
        }
        return jar;
    }

    @Test
    void loadsTheFunctionsClassesFromTheClassPathIncludingFolderWildcards() throws Exception {
        Path lib = Files.createDirectories(tmp.resolve("lib"));
        jarWith(lib.resolve("b.jar"), RankFunction.class);
        Files.writeString(lib.resolve("notes.txt"), "not a jar");
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        ClassLoader app = RankMain.applicationLoader(classes + ":" + lib + "/*", JDK_ONLY);
        URL[] urls = ((URLClassLoader) app).getURLs();
        assertEquals(List.of(classes.toUri().toURL(), lib.resolve("b.jar").toUri().toURL()), Arrays.asList(urls));
        Class<?> loaded = app.loadClass(RankFunction.class.getName());
        assertSame(app, loaded.getClassLoader(), "found in lib/b.jar through the wildcard");
        assertThrows(ClassNotFoundException.class, () -> app.loadClass("org.troika.spark.Closures"));
    }

    @Test
    void asksTheRankJvmsLoaderFirstSoTroikaClassesAreShared() throws Exception {
        ClassLoader parent = RankMainTest.class.getClassLoader();
        Path jar = jarWith(tmp.resolve("copy.jar"), RankFunction.class);
        ClassLoader app = RankMain.applicationLoader(jar.toString(), parent);
        assertSame(RankFunction.class, app.loadClass(RankFunction.class.getName()));
    }

    @Test
    void entriesBecomeUrlsOnlyWhenALookupReachesThemAndTheFirstMatchWins() throws Exception {
        List<String> cp = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            cp.add(Files.createDirectories(tmp.resolve("empty" + i)).toString());
        }
        cp.add(0, jarWith(tmp.resolve("first.jar"), RankFunction.class).toString());
        cp.add(9, jarWith(tmp.resolve("late.jar"), Marker.class).toString());
        cp.add(jarWith(tmp.resolve("shadowed.jar"), Marker.class).toString());
        RankMain.ClassPathLoader app = (RankMain.ClassPathLoader) RankMain.applicationLoader(String.join(":", cp), JDK_ONLY);
        assertEquals(0, app.entriesAdded());
        assertSame(app, app.loadClass(RankFunction.class.getName()).getClassLoader());
        assertEquals(1, app.entriesAdded(), "found in the first entry: no other became a URL");
        Class<?> late = app.loadClass(Marker.class.getName());
        assertEquals(tmp.resolve("late.jar").toUri().toURL(), late.getProtectionDomain().getCodeSource().getLocation());
        assertTrue(app.entriesAdded() < cp.size(), "the last entries were never needed: " + app.entriesAdded());
        assertThrows(ClassNotFoundException.class, () -> app.loadClass("org.troika.NoSuchClass"));
        assertEquals(cp.size(), app.getURLs().length);
        assertEquals(2, java.util.Collections.list(app.getResources(Marker.class.getName().replace('.', '/')
                + ".class")).size());
    }

    /** A class that needs nothing but the JDK to load. */
    static final class Marker {
    }

    @Test
    void noClassPathMeansTheRankJvmsOwnLoader() {
        assertSame(JDK_ONLY, RankMain.applicationLoader(null, JDK_ONLY));
        assertSame(JDK_ONLY, RankMain.applicationLoader("", JDK_ONLY));
    }
}
